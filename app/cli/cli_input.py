"""Command-line text that is not text: bytes that are not UTF-8 in the prompt, on standard input or in an
option that is sent to the provider.

Python hands such bytes over as lone surrogates (``surrogateescape``), or fails to read standard input at all
when its encoding is strict. Sent on, they fail deep in the HTTP layer with a traceback; here they are refused
as bad usage (exit 2) with the place and the byte, before anything is saved or sent.

``prompt_from_stdin`` also reads the prompt as a user gives it: on a terminal it first says how to end it (else
parley seems to hang), and the line breaks that end the input (``echo``'s newline, the Enter before Ctrl+D) are
not part of the question; everything before them is kept as typed. ``typed_prompt_kept`` gives a prompt typed
at the terminal back when the chat fails before it is saved or sent (a locked database, an unknown
conversation), since it exists nowhere else.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TextIO

from app.cli.cli_common import UsageError

FIX = "save or type it as UTF-8 and try again"


def _first_surrogate(text: str) -> int | None:
    return next((i for i, c in enumerate(text) if "\ud800" <= c <= "\udfff"), None)


def require_text(value: str | None, what: str) -> str | None:
    """``value`` unchanged; UsageError when it holds bytes that were not UTF-8."""
    if value is None:
        return None
    position = _first_surrogate(value)
    if position is None:
        return value
    code = ord(value[position])
    byte = f"the byte 0x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
    raise UsageError(f"{what} is not valid UTF-8 text ({byte} at character {position + 1}); {FIX}")


def read_text(stream: TextIO, what: str) -> str:
    """All of ``stream``; UsageError when it is not UTF-8 text (whichever error handler the stream has)."""
    try:
        text = stream.read()
    except UnicodeDecodeError as exc:
        raise UsageError(f"{what} is not valid UTF-8 text (the byte 0x{exc.object[exc.start]:02x} at byte "
                         f"{exc.start + 1}); {FIX}") from None
    return require_text(text, what) or ""


TERMINAL_HINT = "Type your message; end it with Ctrl+D on a line of its own (Ctrl+C cancels)."


def prompt_from_stdin(stream: TextIO, hint_to: TextIO | None = None) -> str:
    """The prompt on ``stream`` without the line breaks that end it; UsageError when it is not UTF-8 text."""
    if stream.isatty():
        print(TERMINAL_HINT, file=hint_to or sys.stderr, flush=True)
    return read_text(stream, "the prompt on standard input").rstrip("\r\n")


@contextlib.contextmanager
def typed_prompt_kept(prompt: str, *, typed: bool, out: TextIO | None = None) -> Iterator[None]:
    """Inside the block the chat is set up; when that fails and ``typed`` (the prompt came from a terminal, not
    an argument the shell keeps or a file), the prompt is printed on stderr before the error goes on."""
    try:
        yield
    except BaseException:
        if typed and prompt:
            print(f"parley: your message was not sent; here it is so you can send it again:\n{prompt}",
                  file=out or sys.stderr, flush=True)
        raise
