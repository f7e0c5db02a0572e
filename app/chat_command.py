"""``parley chat``: one tool-using turn from the terminal, over the same loop the window uses."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

from app.cli_common import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, UsageError
from app.cli_output import JsonLinesPrinter, TerminalPrinter
from app.provider_args import provider_from_args
from orchestration.engine import NamedToolChoice, ToolChoice
from orchestration.limits import LoopLimits
from orchestration.loop import RunLoop, RunRequest, RunResult
from orchestration.messages import Message, SystemMessage, UserMessage
from orchestration.providers import UnsupportedKindError, adapter_for
from tools import default_registry
from tools.registry import ToolRegistry, UnknownToolError


def read_prompt(args: argparse.Namespace) -> str:
    prompt = args.prompt
    if prompt is None:
        if sys.stdin is None or sys.stdin.closed:
            raise UsageError("no prompt given and standard input is closed")
        prompt = sys.stdin.read()
    if not prompt.strip():
        raise UsageError("the prompt is empty: pass it as an argument or on standard input")
    return prompt


def tool_choice_from_args(value: str, registry: ToolRegistry, selected: list[str]) -> ToolChoice:
    if value in ("auto", "none", "required"):
        return value  # type: ignore[return-value]
    if value not in selected:
        raise UsageError(f"--tool-choice {value!r} is not one of the selected tools ({', '.join(selected) or 'none'})")
    return NamedToolChoice(name=value)


def build_request(args: argparse.Namespace, registry: ToolRegistry) -> RunRequest:
    try:
        selected = registry.resolve(args.tools)
    except UnknownToolError as exc:
        raise UsageError(f"--tools: {exc}") from None
    messages: list[Message] = []
    if args.system:
        messages.append(SystemMessage(content=args.system))
    messages.append(UserMessage(content=read_prompt(args)))
    return RunRequest(
        model=args.model, messages=messages, tool_names=selected,
        tool_choice=tool_choice_from_args(args.tool_choice, registry, selected),
        stream=not args.no_stream, reasoning_effort=args.reasoning_effort,
        max_output_tokens=args.max_output_tokens,
    )


async def _run(loop: RunLoop, request: RunRequest) -> RunResult:
    task = asyncio.ensure_future(loop.run(request))
    event_loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        event_loop.add_signal_handler(signal.SIGINT, task.cancel)
        event_loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        return await task
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            event_loop.remove_signal_handler(signal.SIGINT)
            event_loop.remove_signal_handler(signal.SIGTERM)
        await loop.adapter.aclose()


def run_chat(args: argparse.Namespace) -> int:
    registry = default_registry()
    config = provider_from_args(args)
    request = build_request(args, registry)
    try:
        adapter = adapter_for(config)
    except UnsupportedKindError as exc:
        raise UsageError(f"--kind: {exc}") from None
    emit = JsonLinesPrinter() if args.json else TerminalPrinter(show_reasoning=not args.no_reasoning)
    limits = LoopLimits(max_iterations=args.max_iterations)
    loop = RunLoop(adapter, registry, emit, limits=limits)
    try:
        result = asyncio.run(_run(loop, request))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    if result.finish_reason == "cancelled":
        return EXIT_INTERRUPTED
    if result.finish_reason == "error":
        return EXIT_ERROR
    return EXIT_OK
