"""What the chat lays out at once for one answer, so a hostile or huge answer opens in a moment (user pass 4).

Qt's text layout has three costs that grow faster than the text (measured in the user pass on this project's
2-core machine, a 700 px wide chat; ``python -m bench.hostile_open`` measures them against the limits lifted):

- A run of characters with no break opportunity (a 200,000-character line, a long hash or URL) is wrapped by
  Qt's "word boundary, else anywhere" mode in time quadratic in the run: 2.5 s for 200,000 characters. Runs
  longer than ``LONG_RUN_CHARS`` get an invisible break opportunity (U+200B, a zero-width space) every
  ``BREAK_EVERY_CHARS`` characters, so they wrap like any text; ``without_breaks`` takes them out again where
  text leaves the view (a copied selection, a code block's Copy).
- Pygments colours a code block line by line: 11 s for a 50,000-line block. Blocks longer than
  ``CODE_HIGHLIGHT_MAX_LINES`` lines are shown without colours.
- A code block or a table is laid out whole: 1.4 s for 50,000 code lines, 6.8 s for a 2,000-row table of
  20 columns. A code block shows its first ``CODE_MAX_LINES`` lines and a table its first ``TABLE_MAX_ROWS``
  rows (fewer for a wide table: ``TABLE_MAX_CELLS``), each followed by a line saying how many more there are;
  the rest stays reachable: the block's Copy link and the message's Copy action copy everything.
- Plain text is laid out in linear time, but 2,000,000 characters (the answer limit) took about a second, again
  at every change of the chat's width (the inspector opening): a message from history lays out its first
  ``MESSAGE_LAYOUT_MAX_CHARS`` characters (``LayoutBudget``) and says how many more there are.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QMimeData
from PySide6.QtGui import QTextCursor, QTextDocument
from PySide6.QtWidgets import QTextEdit

LONG_RUN_CHARS = 1_000  # characters without a space or other break before break opportunities are added
BREAK_EVERY_CHARS = 8  # how far apart they are: the right edge of such a run is ragged by at most this much
CODE_HIGHLIGHT_MAX_LINES = 2_000  # longer code blocks are shown without syntax colours
CODE_MAX_LINES = 5_000  # code lines laid out per block; the rest are copied by the block's Copy link
TABLE_MAX_ROWS = 200  # table rows laid out per table (with its header); the rest are in the message's Copy
TABLE_MAX_CELLS = 2_000  # and fewer rows for a wide table: at most this many cells, at least TABLE_MIN_ROWS rows
TABLE_MIN_ROWS = 10


def table_rows_shown(columns: int) -> int:
    """How many rows (after the header) of a table with ``columns`` columns are laid out."""
    return min(TABLE_MAX_ROWS, max(TABLE_MIN_ROWS, TABLE_MAX_CELLS // max(1, columns)))

SOFT_BREAK = "\u200b"
_LONG_RUN = re.compile(rf"[^\s\u200b]{{{LONG_RUN_CHARS},}}")  # a text's own zero-width spaces break it already
_BREAK_EVERY = re.compile(rf"(.{{{BREAK_EVERY_CHARS}}})", re.DOTALL)


def _split_run(match: re.Match[str]) -> str:
    return _BREAK_EVERY.sub(lambda m: m.group(1) + SOFT_BREAK, match.group(0))


def with_breaks(text: str) -> str:
    """``text`` with a break opportunity every ``BREAK_EVERY_CHARS`` characters inside runs longer than
    ``LONG_RUN_CHARS``; shorter text comes back unchanged (the same object)."""
    if len(text) < LONG_RUN_CHARS:
        return text
    return _LONG_RUN.sub(_split_run, text)


def without_breaks(text: str) -> str:
    """Text from a document that holds breaks ``with_breaks`` added, without them. An answer's own zero-width
    spaces copied together with them go too (they are invisible; the message's Copy action keeps them)."""
    return text.replace(SOFT_BREAK, "")


def more_lines_note(hidden: int) -> str:
    return f"… {hidden:,} more line{'s' if hidden != 1 else ''} not shown here; Copy copies the whole block"


def more_rows_note(hidden: int) -> str:
    return f"… {hidden:,} more row{'s' if hidden != 1 else ''} not shown here; the message's Copy copies them"


def copied_without_breaks(document: QTextDocument, mime: QMimeData) -> QMimeData:
    """A selection copied from ``document``, its text and HTML without the breaks the answer builder added."""
    if not getattr(document, "soft_breaks", False):
        return mime
    if mime.hasHtml():
        mime.setHtml(without_breaks(mime.html()))
    if mime.hasText():
        mime.setText(without_breaks(mime.text()))
    return mime


LOADING_NOTE_CHARS = 100_000  # a page of history larger than this shows "Loading conversation…" first
LOADING_NOTE = "Loading conversation…"


def show_loading(view: QTextEdit) -> None:
    """Replace what ``view`` shows by the loading line and paint it now, before a long layout starts: the
    previous conversation must not stay on screen as if nothing happened."""
    view.document().clear()
    QTextCursor(view.document()).insertText(LOADING_NOTE)
    view.viewport().repaint()


MESSAGE_LAYOUT_MAX_CHARS = 250_000  # characters of one message laid out from history; the rest is in its Copy


class LayoutBudget:
    """How much of one message's text is still laid out: the chat view takes its pieces (text between tool
    chips) through ``take`` and says how much was left out with ``more_chars_note``.

    A message of 2,000,000 characters (the answer limit) took seconds to lay out, and again at every change of
    the chat's width (the inspector opening, a resize), with the window not answering meanwhile."""

    def __init__(self, limit: int = MESSAGE_LAYOUT_MAX_CHARS) -> None:
        self.left = limit
        self.hidden = 0

    def take(self, text: str) -> str:
        """The part of ``text`` to lay out: whole markdown blocks while they fit, then the prose block that
        crosses the limit cut at it. A code block that crosses it is kept whole (``CODE_MAX_LINES`` and the
        added breaks bound its layout, and its Copy link copies it all); nothing after it is laid out."""
        if len(text) <= self.left:
            self.left -= len(text)
            return text
        from widgets.markdown_blocks import BlockSplitter  # only for a huge message

        splitter = BlockSplitter()
        blocks = [*splitter.feed(text), splitter.tail]
        kept: list[str] = []
        for block in blocks:
            if len(block) <= self.left:
                kept.append(block)
                self.left -= len(block)
                continue
            if block.lstrip(" ").startswith(("```", "~~~")):
                kept.append(block)
            elif self.left > 0:
                kept.append(block[:self.left])
            self.left = 0
            break
        shown = "".join(kept)
        self.hidden += max(0, len(text) - len(shown))
        return shown


def more_chars_note(hidden: int) -> str:
    return f"… {hidden:,} more characters not shown here; the message's Copy copies them"
