"""How a run looks in a terminal: the answer on stdout, everything else on stderr, or JSON lines.

Both printers consume the same run events the window and the trace do, and write through
app/cli/terminal_text.py, so control sequences in model or tool text are shown, not obeyed.
"""

from __future__ import annotations

import sys
from typing import TextIO

from app.cli.terminal_text import TerminalSafeStream, terminal_safe
from orchestration.events import RunEvent, event_json


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
        if event.type == "reasoning":
            if self.show_reasoning:
                if not self._in_reasoning:
                    self.err.write("[reasoning] ")
                    self._in_reasoning = True
                self.err.write(event.content)
                self.err.flush()
        elif event.type == "content":
            self._end_reasoning()
            self.out.write(event.content)
            self.out.flush()
            self._answer_open = not event.content.endswith("\n")
        elif event.type == "tool_calls":
            self._end_reasoning()
            self._end_answer_line()
            for call in event.calls:
                self._names[call.id] = call.name
                self.err.write(f"[tool] {call.name}({_short(call.arguments, 200)})\n")
        elif event.type == "tool_result":
            self.err.write(f"[tool] {event.name} -> {event.status} in {event.duration_ms} ms: "
                           f"{_short(event.result)}\n")
        elif event.type == "warning":
            self._end_reasoning()
            self._end_answer_line()
            self.err.write(f"[warning] {event.message}\n")
        elif event.type == "error":
            self._end_reasoning()
            self._end_answer_line()
            self.err.write(f"error: {event.message}\n")
        elif event.type == "done":
            self._end_reasoning()
            self._end_answer_line()
            if event.finish_reason == "cancelled":
                self.err.write("[stopped]\n")
            elif event.finish_reason == "length":
                self.err.write("[the answer was cut off at the output token limit]\n")
        self.err.flush()
