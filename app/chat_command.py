"""``parley chat``: one tool-using turn from the terminal, over the same loop the window uses.

The conversation is saved by default (app/chat_recording.py): the user message before the request, the answer
as it streams (checkpoints) and at the end. The provider comes from the settings or the flags
(app/chat_target.py).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from dataclasses import replace

from app.chat_recording import ChatConversation, prepare_conversation
from app.chat_target import ChatTarget, resolve_target
from app.cli_approval import cli_approver, is_interactive
from app.cli_common import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, UsageError
from app.cli_context import open_history, paths_from_args, secret_store, settings_from_args
from app.cli_input import read_text, require_text
from app.cli_output import JsonLinesPrinter, TerminalPrinter
from app.errors import EnvironmentProblem
from app.provider_args import api_key_from_env, provider_from_args
from app.secrets import SecretStore
from app.settings import Settings, save_settings
from app.storage import History
from app.storage.run_recorder import CHECKPOINT_INTERVAL_S, RunRecorder
from app.tool_setup import connected_mcp, tool_registry
from orchestration.engine import ChatAdapter, NamedToolChoice, ToolChoice
from orchestration.event_redaction import RedactingEmitter
from orchestration.events import RunEvent
from orchestration.loop import RunLoop, RunRequest, RunResult
from orchestration.providers import UnsupportedKindError, adapter_for
from orchestration.tool_turn import Approver, Emit
from tools.registry import ToolRegistry, UnknownToolError


def read_prompt(args: argparse.Namespace) -> str | None:
    require_text(getattr(args, "system", None), "--system")
    require_text(getattr(args, "model", None), "--model")
    if args.regenerate:
        if args.conversation is None:
            raise UsageError("--regenerate needs --conversation ID")
        if args.prompt is not None:
            raise UsageError("--regenerate answers the last message again; it takes no prompt")
        return None
    prompt = require_text(args.prompt, "the prompt")
    if prompt is None:
        if sys.stdin is None or sys.stdin.closed:
            raise UsageError("no prompt given and standard input is closed")
        prompt = read_text(sys.stdin, "the prompt on standard input")
    if not prompt.strip():
        raise UsageError("the prompt is empty: pass it as an argument or on standard input")
    return prompt


def tool_choice_from_args(value: str, registry: ToolRegistry, selected: list[str]) -> ToolChoice:
    if value in ("auto", "none", "required"):
        return value  # type: ignore[return-value]
    if value not in selected:
        raise UsageError(f"--tool-choice {value!r} is not one of the selected tools ({', '.join(selected) or 'none'})")
    return NamedToolChoice(name=value)


def selected_tools(args: argparse.Namespace, registry: ToolRegistry, settings: Settings) -> list[str]:
    """``--tools``; with ``all``, the tools the settings disable or deny are left out."""
    try:
        selected = registry.resolve(args.tools)
    except UnknownToolError as exc:
        raise UsageError(f"--tools: {exc}") from None
    if args.tools == "all":
        tools = settings.tools
        selected = [n for n in selected if tools.enabled.get(n, True) and tools.approval.get(n) != "deny"]
    return selected


def approver_for(args: argparse.Namespace, settings: Settings) -> Approver:
    """Settings policies, then ``--approve``, then a question on a terminal (app/cli_approval.py)."""

    def remember(names: list[str]) -> None:
        for name in names:
            settings.tools.approval[name] = "allow"
        try:
            save_settings(settings, paths_from_args(args).settings)
        except EnvironmentProblem as problem:
            print(f"parley: {problem} The choice applies to this chat only.", file=sys.stderr)

    return cli_approver(settings, args.approve, interactive=is_interactive(), remember=remember)


def build_request(args: argparse.Namespace, registry: ToolRegistry, selected: list[str], target: ChatTarget,
                  conversation: ChatConversation) -> RunRequest:
    return RunRequest(
        model=target.model, messages=conversation.messages, tool_names=selected,
        tool_choice=tool_choice_from_args(args.tool_choice, registry, selected),
        stream=not args.no_stream, reasoning_effort=target.reasoning_effort,
        max_output_tokens=args.max_output_tokens,
        conversation_id=None if conversation.conversation_id is None else str(conversation.conversation_id),
    )


async def _checkpoints(recorder: RunRecorder) -> None:
    """Save the streaming answer on time even when no new event arrives to trigger it."""
    while True:
        await asyncio.sleep(CHECKPOINT_INTERVAL_S / 2)
        recorder.checkpoint_if_due()


async def _run(loop: RunLoop, request: RunRequest, recorder: RunRecorder | None) -> RunResult:
    task = asyncio.ensure_future(loop.run(request))
    ticker = asyncio.ensure_future(_checkpoints(recorder)) if recorder is not None else None
    event_loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        event_loop.add_signal_handler(signal.SIGINT, task.cancel)
        event_loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        return await task
    finally:
        if ticker is not None:
            ticker.cancel()
        with contextlib.suppress(NotImplementedError, RuntimeError):
            event_loop.remove_signal_handler(signal.SIGINT)
            event_loop.remove_signal_handler(signal.SIGTERM)
        await loop.adapter.aclose()


def _redacting(sink: Emit, secrets: list[str]) -> Emit:
    """What the terminal shows with the key in use hidden, in every event (some providers and models echo it),
    even split across streamed pieces; key-like URL parts and bearer tokens in errors and warnings too."""
    return RedactingEmitter(sink, secrets)


def _fan_out(*sinks: Emit | None) -> Emit:
    targets = [s for s in sinks if s is not None]

    def emit(event: RunEvent) -> None:
        for sink in targets:
            sink(event)

    return emit


def run_chat(args: argparse.Namespace) -> int:
    """One event loop for the whole command: the MCP servers connected before the run must still be connected,
    in the same loop, when the run calls them."""
    settings = settings_from_args(args)
    store = secret_store()
    with asyncio.Runner() as runner:
        mcp = runner.run(connected_mcp(settings, store.lookup)) if settings.mcp_servers else None
        try:
            return _prepare_and_chat(args, runner, settings, store, tool_registry(settings, store.lookup, mcp))
        finally:
            if mcp is not None:
                runner.run(mcp.aclose())


def _prepare_and_chat(args: argparse.Namespace, runner: asyncio.Runner, settings: Settings, store: SecretStore,
                      registry: ToolRegistry) -> int:
    prompt = read_prompt(args)
    target = resolve_target(args, settings, store, env_key=api_key_from_env(args.api_key_env),
                            one_off=lambda: provider_from_args(args))
    if args.idle_timeout is not None:
        target = replace(target, config=target.config.model_copy(update={"idle_timeout": args.idle_timeout}))
    selected = selected_tools(args, registry, settings)
    tool_choice_from_args(args.tool_choice, registry, selected)  # bad usage is reported before anything is saved
    try:
        adapter = adapter_for(target.config)
    except UnsupportedKindError as exc:
        raise UsageError(f"--kind: {exc}") from None
    secrets = [target.api_key] if target.api_key else []
    history: History | None = None
    try:
        history = None if args.no_save and args.conversation is None else open_history(args)
        conversation = prepare_conversation(history, args, prompt, provider=target.config.id, model=target.model,
                                            secrets=secrets)
        request = build_request(args, registry, selected, target, conversation)
        if conversation.recorder is not None:  # the user's message is saved before anything is sent
            ids = conversation.recorder.begin(conversation.prompt, reply_to=conversation.reply_to,
                                              provider=target.config.id, model=target.model)
            request.run_id = ids.run_id
    except BaseException:
        runner.run(adapter.aclose())
        if history is not None:
            history.close()
        raise
    try:
        return _chat(args, runner, registry, settings, adapter, request, conversation, secrets)
    finally:
        if history is not None:
            history.close()


def _chat(args: argparse.Namespace, runner: asyncio.Runner, registry: ToolRegistry, settings: Settings,
          adapter: ChatAdapter, request: RunRequest, conversation: ChatConversation, secrets: list[str]) -> int:
    recorder = conversation.recorder
    printer = JsonLinesPrinter() if args.json else TerminalPrinter(show_reasoning=not args.no_reasoning)
    limits = settings.limits
    if args.max_iterations is not None:
        limits = limits.model_copy(update={"max_iterations": args.max_iterations})
    if args.call_timeout is not None:
        limits = limits.model_copy(update={"model_call_timeout": args.call_timeout})
    loop = RunLoop(adapter, registry, _fan_out(_redacting(printer, secrets), recorder), limits=limits,
                   approver=approver_for(args, settings))
    try:
        result = runner.run(_run(loop, request, recorder))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    if recorder is not None and recorder.save_error is not None:
        print(f"parley: {recorder.save_error}", file=sys.stderr)
        return EXIT_ERROR
    if recorder is not None and not args.json:
        print(f"[saved as conversation {conversation.conversation_id}]", file=sys.stderr)
    if result.finish_reason == "cancelled":
        return EXIT_INTERRUPTED
    if result.finish_reason == "error":
        return EXIT_ERROR
    return EXIT_OK
