"""A tool chip written into the chat document as formatted text: never as HTML.

A chip is a link (``parley-tool:<call id>``) reading ``✓ name(arguments) · ok · 3 ms``; expanded, it adds the
call's arguments and result below it in the same block. Its text comes from the model (arguments), from tools
and MCP servers (names, results), so it is inserted with ``QTextCursor.insertText`` and character formats:
escaping it into HTML for ``insertHtml`` used to collapse runs of spaces and drop the indentation of JSON
results, and every piece of text had to be escaped by hand. Line breaks become line separators (U+2028) so a
chip stays one block, and control characters show as visible symbols, as in the rest of the chat.
The chip's values (``ToolChip``) live here too, beside the code that writes them: the chat view and whoever
builds chips for it (app/session/history_view.py) import them from this module.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PySide6.QtGui import QColor, QFont, QFontDatabase, QTextCharFormat, QTextCursor

from orchestration.tool_outcome import describe
from widgets.safe_text import visible_controls

CHIP_ARGUMENT_CHARS = 60  # of the arguments shown in the chip's line
CHIP_RESULT_CHARS = 4_000  # characters of a result shown in an expanded chip
CHIP_URL_SCHEME = "parley-tool"
LINE_SEPARATOR = "\u2028"


@dataclass
class ToolChip:
    """One tool call as the chat shows it: what the chat view keeps per chip and what ``write_chip`` writes."""

    id: str
    name: str
    arguments: str
    visibility: str = "primary"
    status: str = "running"
    result: str = ""
    duration_ms: int | None = None
    offset: int | None = None  # where in the answer text the call appeared (history only)
    expanded: bool = False
    repeated: bool = False  # the same call earlier in its turn answered this one (orchestration.tool_outcome)
    turn: int | None = None  # the model call (iteration) that asked for it, while streaming


def short_arguments(arguments: str) -> str:
    try:
        value: Any = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        value = None
    if isinstance(value, dict):
        text = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in value.items())
    else:
        text = " ".join(arguments.split())
    return text if len(text) <= CHIP_ARGUMENT_CHARS else text[: CHIP_ARGUMENT_CHARS - 1] + "…"


@lru_cache(maxsize=1)
def _fixed_family() -> str:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()


def _shown(text: str) -> str:
    return visible_controls(text.replace("\r\n", "\n")).replace("\n", LINE_SEPARATOR)


def chip_body(chip: ToolChip) -> str:
    """The expanded part: arguments and (a start of) the result, line by line."""
    result = chip.result if len(chip.result) <= CHIP_RESULT_CHARS else (
        chip.result[:CHIP_RESULT_CHARS] + f"\n… ({len(chip.result) - CHIP_RESULT_CHARS} more characters)")
    lines = ["arguments:", *(chip.arguments.splitlines() or ["(none)"]),
             "result:", *(result.splitlines() or ["(empty)"])]
    return "\n".join(lines)


def write_chip(cursor: QTextCursor, chip: ToolChip, link: QColor) -> None:
    """The chip at ``cursor`` (replacing its selection), its line a link in ``link``'s colour."""
    outcome = describe(chip.status, chip.result, chip.duration_ms, repeated=chip.repeated)
    cursor.setKeepPositionOnInsert(False)  # a copy of a chip's anchor keeps its place; this one must move on
    anchor = QTextCharFormat()
    anchor.setAnchor(True)
    anchor.setAnchorHref(f"{CHIP_URL_SCHEME}:{chip.id}")
    anchor.setForeground(link)
    anchor.setFontUnderline(False)
    name = QTextCharFormat(anchor)
    name.setFontWeight(QFont.Weight.Bold)
    cursor.insertText(f"{outcome.mark} ", anchor)
    cursor.insertText(_shown(chip.name), name)
    cursor.insertText(_shown(f"({short_arguments(chip.arguments)}) · {outcome.label}"), anchor)
    if not chip.expanded:
        return
    body = QTextCharFormat()
    body.setFontFamilies([_fixed_family()])
    cursor.insertText(LINE_SEPARATOR + _shown(chip_body(chip)), body)
