"""How ``parley search`` shows the words that matched: bold on a terminal, nothing in a pipe.

The search (app/storage/search.py) wraps each match in marks of the caller's choice. ``--json`` keeps its
``**…**`` (the documented output). Text output asks for marks no stored text can plausibly hold (a random
nonce per search), splits the snippet at them, makes every piece of stored text terminal-safe
(app/cli/terminal_text.py) and only then adds the terminal's own bold on and off sequences, so the one escape
sequence that reaches the terminal is Parley's. Bold is used when standard output is a terminal, ``NO_COLOR``
is unset or empty (https://no-color.org) and ``TERM`` is not ``dumb``.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass
from typing import TextIO

from app.cli.terminal_text import terminal_safe

BOLD_ON = "\x1b[1m"
BOLD_OFF = "\x1b[22m"


def wants_bold(stream: TextIO, environ: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    """Bold for a terminal that has not asked for plain text."""
    if environ.get("NO_COLOR") or environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream is not a terminal
        return False


@dataclass(frozen=True)
class MatchMarks:
    """The marks the search puts around matches, and how a marked snippet is shown."""

    start: str
    end: str
    bold: bool

    @classmethod
    def for_terminal(cls, bold: bool) -> MatchMarks:
        nonce = secrets.token_hex(8)
        return cls(start=f"\ue000{nonce}<", end=f">{nonce}\ue000", bold=bold)

    @property
    def pair(self) -> tuple[str, str]:
        return self.start, self.end

    def shown(self, snippet: str) -> str:
        """``snippet`` made terminal-safe, its matches in bold or unmarked."""
        on, off = (BOLD_ON, BOLD_OFF) if self.bold else ("", "")
        pieces = []
        for part in snippet.split(self.start):
            matched, found, rest = part.partition(self.end)
            pieces.append(f"{on}{terminal_safe(matched)}{off}{terminal_safe(rest)}" if found
                          else terminal_safe(matched))
        return "".join(pieces)


__all__ = ["BOLD_OFF", "BOLD_ON", "MatchMarks", "wants_bold"]
