"""``parley chat``: one tool-using turn from the terminal, through the run service the window uses too
(app/runs/run_service.py).

The conversation is saved by default: the user message before the request, the answer as it streams
(checkpoints) and at the end. The flags become the chat's settings in app/cli/chat_target.py.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from app.attachments import AttachmentError, PreparedAttachment, load_attachments
from app.cli.answer_watch import AnswerWatch
from app.cli.chat_target import chat_settings, cli_problem
from app.cli.cli_approval import cli_approver, is_interactive
from app.cli.cli_budget import check_budget
from app.cli.cli_common import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_NO_ANSWER, EXIT_OK, UsageError
from app.cli.cli_context import (
    open_history,
    paths_from_args,
    save_settings_from_args,
    secret_store,
    settings_from_args,
)
from app.cli.cli_input import prompt_from_stdin, require_text, typed_prompt_kept
from app.cli.cli_interrupt import Interrupts
from app.cli.cli_output import JsonLinesPrinter, TerminalPrinter
from app.cli.mcp_notice import report_unready_servers
from app.cli.provider_args import api_key_from_env, provider_from_args
from app.cli.terminal_text import terminal_safe
from app.engine.manager import BuiltinEngine
from app.engine.terminal import TerminalProgress
from app.errors import EnvironmentProblem
from app.runs.chat_recording import NothingToRegenerateError, continuation
from app.runs.chat_turn import ChatSettings
from app.runs.conversation_chat import unsupported_kept, with_stored
from app.runs.run_service import PreparedRun, RunService, RunSetupError, Subscriber, run
from app.runs.tool_setup import mcp_manager, start_mcp
from app.settings import Settings
from app.storage import History
from app.storage.chat_settings import ChatSettingsStore
from orchestration.loop import RunResult
from orchestration.providers import UnsupportedKindError
from orchestration.tool_turn import Approver


def read_prompt(args: argparse.Namespace) -> str | None:
    require_text(getattr(args, "system", None), "--system")
    require_text(getattr(args, "model", None), "--model")
    if args.regenerate and getattr(args, "continue_answer", False):
        raise UsageError("--regenerate and --continue cannot be used together")
    if args.regenerate or getattr(args, "continue_answer", False):
        flag = "--regenerate" if args.regenerate else "--continue"
        if args.conversation is None:
            raise UsageError(f"{flag} needs --conversation ID")
        if args.prompt is not None:
            raise UsageError(f"{flag} goes on from the conversation's last message; it takes no prompt")
        return None
    prompt = require_text(args.prompt, "the prompt")
    if prompt is None:
        if sys.stdin is None or sys.stdin.closed:
            raise UsageError("no prompt given and standard input is closed")
        prompt = prompt_from_stdin(sys.stdin)
    if not prompt.strip():
        raise UsageError("the prompt is empty: pass it as an argument or on standard input")
    return prompt


def read_attachments(args: argparse.Namespace) -> list[PreparedAttachment]:
    """The ``--attach`` files, prepared; a file that cannot be attached is a usage error naming it (nothing is
    saved or sent). Notes for the user (a cut, a PDF without text) go to stderr."""
    if not args.attach:
        return []
    if args.regenerate:
        raise UsageError("--regenerate answers the last message again; it takes no --attach")
    try:
        attachments = load_attachments(args.attach)
    except AttachmentError as problem:
        raise UsageError(f"--attach: {problem}") from None
    for attachment in attachments:
        note = getattr(attachment.part, "note", "")
        if note:
            print(f"parley: {attachment.name}: {note}", file=sys.stderr)
    return attachments


def approver_for(args: argparse.Namespace, settings: Settings) -> Approver:
    """Settings policies, then ``--approve``, then a question on a terminal (app/cli/cli_approval.py)."""

    def remember(names: list[str]) -> None:
        for name in names:
            settings.tools.approval[name] = "allow"
        try:
            save_settings_from_args(args, settings)
        except EnvironmentProblem as problem:
            print(f"parley: {problem} The choice applies to this chat only.", file=sys.stderr)

    return cli_approver(settings, args.approve, interactive=is_interactive(), remember=remember)


async def _run(prepared: PreparedRun, printer: Subscriber, approver: Approver, interrupts: Interrupts) -> RunResult:
    """The run; Ctrl+C (app/cli/cli_interrupt.py) and SIGTERM cancel it, which saves the partial answer."""
    task = asyncio.ensure_future(run(prepared, printer, approver))
    event_loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        event_loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        with interrupts.watching(task):
            return await task
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            event_loop.remove_signal_handler(signal.SIGTERM)


def run_chat(args: argparse.Namespace) -> int:
    """One event loop for the whole command: the MCP servers connected before the run must still be connected,
    in the same loop, when the run calls them."""
    settings = settings_from_args(args)
    store = secret_store(args)
    with Interrupts().installed() as interrupts, asyncio.Runner() as runner:
        mcp = None
        if settings.mcp_servers:
            mcp = mcp_manager(settings, store.lookup)
            interrupts.before_exit(mcp.kill_now)
            runner.run(start_mcp(mcp))
            report_unready_servers(mcp.statuses())
        engine = BuiltinEngine(settings.engine, paths_from_args(args).data_dir)
        engine.add_listener(TerminalProgress())
        interrupts.before_exit(engine.kill_now)
        try:
            service = RunService(settings, store, mcp=mcp, engine=engine, recheck_keys=True)  # no UI thread to spare
            return _prepare_and_chat(args, runner, service, interrupts)
        finally:
            runner.run(engine.aclose())
            if mcp is not None:
                runner.run(mcp.aclose())


def _prepare_and_chat(args: argparse.Namespace, runner: asyncio.Runner, service: RunService,
                      interrupts: Interrupts) -> int:
    prompt = read_prompt(args)
    typed = prompt is not None and args.prompt is None and sys.stdin is not None and sys.stdin.isatty()
    with typed_prompt_kept(prompt or "", typed=typed):
        prepared, history = _prepare(args, prompt, service)
    try:
        return _chat(args, runner, service.settings, prepared, interrupts)
    finally:
        if history is not None:
            history.close()


def _prepare(args: argparse.Namespace, prompt: str | None,
             service: RunService) -> tuple[PreparedRun, History | None]:
    """The user's message saved (unless --no-save) and the request built; nothing is sent yet."""
    attachments = read_attachments(args)
    chat = chat_settings(args, service.settings, env_key=api_key_from_env(args.api_key_env),
                         one_off=lambda: provider_from_args(args))
    history: History | None = None
    try:
        history = None if args.no_save and args.conversation is None else open_history(args)
        if history is not None and args.conversation is not None:
            chat = _continued(args, chat, service, history)
        try:  # bad usage is reported before anything is saved
            plan = service.plan(prompt, chat, attachments)
        except (RunSetupError, UnsupportedKindError) as problem:
            raise cli_problem(problem, service.secrets) from None
        check_budget(args, service.settings, plan.pricer)  # over the monthly budget: asks, or refuses (exit 1)
        placement = continuation(history, args.conversation) if getattr(args, "continue_answer", False) and \
            history is not None else None
        prepared = service.begin(plan, history, args.conversation, regenerate=args.regenerate, placement=placement)
    except NothingToRegenerateError as problem:
        if history is not None:
            history.close()
        raise cli_problem(problem, service.secrets) from None
    except BaseException:
        if history is not None:
            history.close()
        raise
    return prepared, history


def _continued(args: argparse.Namespace, given: ChatSettings, service: RunService, history: History) -> ChatSettings:
    """``--conversation ID``: the flags completed by the conversation's kept settings; kept values the provider
    now in use cannot take are not sent, and the terminal is told so."""
    kept = ChatSettingsStore(history).load(args.conversation)  # NotFoundError: a usage error (app/cli/entry.py)
    chat = with_stored(given, kept, service.settings, provider_given=bool(args.provider or args.preset
                                                                         or args.base_url or args.kind),
                       tools_given=args.tools is not None)
    try:
        target = service.target(chat)
    except RunSetupError as problem:
        raise cli_problem(problem, service.secrets) from None
    chat, notices = unsupported_kept(chat, given, target)
    for notice in notices:
        print(f"parley: {terminal_safe(notice)}", file=sys.stderr)
    return chat


def _chat(args: argparse.Namespace, runner: asyncio.Runner, settings: Settings, prepared: PreparedRun,
          interrupts: Interrupts) -> int:
    recorder = prepared.recorder
    printer = AnswerWatch(JsonLinesPrinter() if args.json else TerminalPrinter(show_reasoning=not args.no_reasoning))
    try:
        result = runner.run(_run(prepared, printer, approver_for(args, settings), interrupts))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    if recorder is not None and recorder.save_error is not None:
        print(f"parley: {recorder.save_error}", file=sys.stderr)
        return EXIT_ERROR
    if recorder is not None and not args.json:
        print(f"[saved as conversation {prepared.conversation_id}]", file=sys.stderr)
    if result.finish_reason == "cancelled":
        return EXIT_INTERRUPTED
    if result.finish_reason == "error":
        return EXIT_ERROR
    missing = printer.missing_answer(result.finish_reason)
    if missing is not None:
        print(f"parley: {missing}", file=sys.stderr)
        return EXIT_NO_ANSWER
    return EXIT_OK
