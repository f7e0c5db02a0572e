"""Text from models, tools, providers and the history made safe to write to a terminal.

A model's answer, a tool's result, a provider's error or a stored title can hold terminal control sequences:
clearing the screen, setting the window title, moving the cursor, or bidi overrides that show text in another
order than it is. Written raw, a terminal would act on them. ``terminal_safe`` writes every such character as
a visible ``\\uXXXX`` escape instead: C0 controls other than tab and newline (ESC starts every CSI and OSC
sequence, so they all become inert text), DEL, the C1 controls (8-bit CSI and OSC among them) and the bidi
embeddings, overrides and isolates. A CR LF pair is a newline. A lone surrogate (which no terminal encoding can
write) is escaped the same way.

The escape is the one JSON uses, and JSON output never holds these characters outside a string, so ``--json``
output passed through here is still exact JSON that decodes to the same values. ``safe_output`` applies this to
everything the CLI writes to stdout and stderr, terminal or not (piped output often ends up on a terminal).
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

# Characters a terminal acts on rather than shows (tab and newline are kept), and lone surrogates.
UNSAFE_CHARACTERS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every control character a terminal would act on written as a visible ``\\uXXXX``."""
    return UNSAFE_CHARACTERS.sub(_escape, text.replace("\r\n", "\n"))


class TerminalSafeStream:
    """A text stream that writes everything through ``terminal_safe``; other attributes are the wrapped
    stream's. A carriage return at the end of one write waits for the next, so a CR LF split between two
    writes (streamed text) is still one newline."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self._pending_cr = False

    def write(self, text: str) -> int:
        written = len(text)
        if self._pending_cr:
            text, self._pending_cr = "\r" + text, False
        if text.endswith("\r"):
            text, self._pending_cr = text[:-1], True
        if text:
            self.stream.write(terminal_safe(text))
        return written

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.stream.flush()

    def isatty(self) -> bool:
        return self.stream.isatty()

    def fileno(self) -> int:
        return self.stream.fileno()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


def raw_stdout(stream: TextIO) -> TextIO:
    """The stream under a ``TerminalSafeStream``, for text already made safe that adds the few sequences Parley
    itself means (app/cli/match_marks.py); any other stream as it is."""
    return stream.stream if isinstance(stream, TerminalSafeStream) else stream


@contextlib.contextmanager
def safe_output() -> Iterator[None]:
    """Route ``sys.stdout`` and ``sys.stderr`` through ``TerminalSafeStream`` inside the block."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalSafeStream(saved[0]), TerminalSafeStream(saved[1])
    try:
        yield
    finally:
        wrapped_out, wrapped_err = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = saved  # restored first: flushing a closed pipe raises (app/cli/closed_output.py)
        wrapped_err.flush()
        wrapped_out.flush()


__all__ = ["UNSAFE_CHARACTERS", "TerminalSafeStream", "raw_stdout", "safe_output", "terminal_safe"]
