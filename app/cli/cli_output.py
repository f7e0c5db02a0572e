"""How a run looks in a terminal: the answer on stdout, everything else on stderr, or JSON lines.

Both printers consume the same run events the window and the trace do, and write through
app/cli/terminal_text.py, so control sequences in model or tool text are shown, not obeyed.
"""

from __future__ import annotations

import sys
from typing import TextIO, assert_never

from app.cli.terminal_text import TerminalSafeStream, terminal_safe
from orchestration.events import (
    ContentDelta,
    Done,
    ModelCallFinished,
    ModelCallStarted,
    ModelExchange,
    ReasoningDelta,
    RunError,
    RunEvent,
    RunStarted,
    RunWarning,
    ToolCalls,
    ToolExecuting,
    ToolResult,
    Usage,
    event_json,
)


class JsonLinesPrinter:
    """Every event as one JSON line on stdout (the ``--json`` contract, docs/events.md)."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout

    def __call__(self, event: RunEvent) -> None:
        self.out.write(terminal_safe(event_json(event)) + "\n")
        self.out.flush()


def _short(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TerminalPrinter:
    """The answer streams to stdout; reasoning, tool activity, warnings and errors go to stderr."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None, show_reasoning: bool = True) -> None:
        self.out = TerminalSafeStream(out or sys.stdout)
        self.err = TerminalSafeStream(err or sys.stderr)
        self.show_reasoning = show_reasoning
        self._in_reasoning = False
        self._answer_open = False
        self._names: dict[str, str] = {}

    def _end_reasoning(self) -> None:
        if self._in_reasoning:
            self.err.write("\n")
            self._in_reasoning = False

    def _end_answer_line(self) -> None:
        if self._answer_open:
            self.out.write("\n")
            self.out.flush()
            self._answer_open = False

    def __call__(self, event: RunEvent) -> None:
        match event:
            case ReasoningDelta():
                if self.show_reasoning:
                    if not self._in_reasoning:
                        self.err.write("[reasoning] ")
                        self._in_reasoning = True
                    self.err.write(event.content)
                    self.err.flush()
            case ContentDelta():
                self._end_reasoning()
                self.out.write(event.content)
                self.out.flush()
                self._answer_open = not event.content.endswith("\n")
            case ToolCalls():
                self._end_reasoning()
                self._end_answer_line()
                for call in event.calls:
                    self._names[call.id] = call.name
                    self.err.write(f"[tool] {call.name}({_short(call.arguments, 200)})\n")
            case ToolResult():
                self.err.write(f"[tool] {event.name} -> {event.status} in {event.duration_ms} ms: "
                               f"{_short(event.result)}\n")
            case RunWarning():
                self._end_reasoning()
                self._end_answer_line()
                self.err.write(f"parley: warning: {event.message}\n")
            case RunError():
                self._end_reasoning()
                self._end_answer_line()
                self.err.write(f"parley: {event.message}\n")
            case Done():
                self._end_reasoning()
                self._end_answer_line()
                if event.finish_reason == "cancelled":
                    self.err.write("[stopped]\n")
                elif event.finish_reason == "length":
                    self.err.write("[the answer was cut off at the output token limit]\n")
            case (RunStarted() | ToolExecuting() | Usage() | ModelCallStarted() | ModelCallFinished()
                  | ModelExchange()):
                pass
            case _:
                assert_never(event)
        self.err.flush()
