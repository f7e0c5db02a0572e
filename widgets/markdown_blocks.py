"""Splitting streamed markdown into blocks that will never change again, and the unfinished rest.

The chat view renders a finished block once and keeps it; only the tail is re-rendered as text arrives. That
is only correct if a block, once declared finished, renders the same no matter what follows. A blank line
outside a code fence ends a block, except where markdown lets the next line continue it: list items (a blank
line inside a list makes it loose, and items after it still belong to the same list), indented continuation
lines and indented code. So a block is only declared finished when the first line after the blank line
arrives and cannot continue it.

A long list is one block by that rule, and re-rendering it whole every frame would make streaming quadratic.
So a list is also cut where a new top-level item starts (same indent, same kind of marker): the items before it
can no longer change, and they render the same alone because the chat document draws list items as separate
blocks. The cut-off part of an ordered list has its first number rewritten to where the list has got to
(CommonMark numbers items from the first one), so numbering carries on; when the number would be wider than the
one written (which would move the item's content), the list is no longer cut.

A few constructs depend on distant context (link reference definitions, raw HTML blocks that may span blank
lines, and a table anywhere after a code block or quote, kept from Qt's importer); ``needs_full_render`` says
so, and the view then renders the finished message once in full.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_LIST_ITEM = re.compile(r"^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)")
_ITEM_PARTS = re.compile(r"^( {0,3})(?:([-+*])|(\d{1,9})([.)]))(?=[ \t]|$)")
_INDENTED = re.compile(r"^(?: {1,}|\t)\S")
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:")
_HTML_BLOCK = re.compile(r"^ {0,3}<[A-Za-z!?/]")
_TABLE_DELIMITER = re.compile(r"^ {0,3}\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")
_QUOTE = re.compile(r"^ {0,3}>")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")


@dataclass
class _Block:
    lines: list[str] = field(default_factory=list)
    kind: str = "paragraph"  # paragraph | list | code | fence | quote | table | other

    @property
    def text(self) -> str:
        return "".join(self.lines)


def _kind_of(first_line: str) -> str:
    if _RULE.match(first_line):
        return "rule"
    if _FENCE.match(first_line):
        return "fence"
    if _LIST_ITEM.match(first_line):
        return "list"
    if first_line.startswith(("    ", "\t")):
        return "code"
    if _QUOTE.match(first_line):
        return "quote"
    return "paragraph"


class BlockSplitter:
    """Feed markdown deltas; collect finished blocks; ``tail`` is everything not finished yet."""

    def __init__(self) -> None:
        self._partial_line = ""
        self._current = _Block()
        self._pending_blank: list[str] = []  # blank lines after the current block, not yet assigned
        self._fence: tuple[str, int] | None = None  # (char, length) of the open fence
        self._seen_kinds: set[str] = set()
        self._list: tuple[str, str, int] | None = None  # the current list's (indent, marker kind, start number)
        self._items = 0  # top-level items of the current list seen so far
        self._content_indent = 0  # where the current top-level item's content starts
        self.needs_full_render = False

    @property
    def tail(self) -> str:
        return self._current.text + "".join(self._pending_blank) + self._partial_line

    def feed(self, text: str) -> list[str]:
        """Add text; return the blocks that became finished (each with its trailing newline)."""
        finished: list[str] = []
        data = self._partial_line + text
        start = 0
        while True:
            end = data.find("\n", start)
            if end < 0:
                break
            finished.extend(self._line(data[start:end + 1]))
            start = end + 1
        self._partial_line = data[start:]
        return finished

    def _line(self, line: str) -> list[str]:
        bare = line.rstrip("\r\n")
        if _REFERENCE_DEFINITION.match(bare) or _HTML_BLOCK.match(bare):
            self.needs_full_render = True
        if self._fence is not None:
            self._current.lines.append(line)
            match = _FENCE.match(bare)
            if match and match.group(1)[0] == self._fence[0] and len(match.group(1)) >= self._fence[1] \
                    and not match.group(2).strip():
                self._fence = None
            return []
        if not bare.strip():
            if self._current.lines:
                self._pending_blank.append(line)
            else:
                self._current.lines.append(line)  # leading blank lines stay with the next block
            return []
        finished: list[str] = []
        item = self._next_item(bare) if self._current.kind == "list" and self._current.lines else None
        if item is not None:
            finished.append(self._close_current())
            marker = _ITEM_PARTS.match(line)
            self._current.kind = "list"
            self._current.lines.append(item + line[marker.end():] if marker else line)
            return finished
        if self._pending_blank and not self._continues(bare):
            finished.append(self._close_current())
        elif self._pending_blank:
            self._current.lines.extend(self._pending_blank)
            self._pending_blank = []
        if not self._current.lines or all(not ln.strip() for ln in self._current.lines):
            self._current.kind = _kind_of(bare)
            if self._current.kind == "list":
                self._start_list(bare)
        elif self._current.kind != "list" and _LIST_ITEM.match(bare) and not _RULE.match(bare):
            # a list begun inside another block: keep what follows together as a list would, but never cut it
            self._current.kind = "list"
            self._list = None
        self._current.lines.append(line)
        if self._current.kind == "paragraph" and _TABLE_DELIMITER.match(bare) and "|" in "".join(self._current.lines):
            self._current.kind = "table"
            if self._seen_kinds & {"fence", "code", "quote"}:
                self.needs_full_render = True
        match = _FENCE.match(bare)
        if match:
            self._fence = (match.group(1)[0], len(match.group(1)))
        return finished

    def _start_list(self, line: str) -> None:
        match = _ITEM_PARTS.match(line)
        if match is None:
            self._list = None
            return
        indent, bullet, number, delimiter = match.groups()
        self._list = (indent, bullet or delimiter, int(number) if number else 0)
        self._items = 1
        self._content_indent = _content_indent(line, match.end())

    def _next_item(self, line: str) -> str | None:
        """The marker to start a new chunk with, when ``line`` is the next top-level item of the current list."""
        if self._list is None:
            return None
        match = _ITEM_PARTS.match(line)
        if match is None or _RULE.match(line):
            # only lines indented into the item keep the list certain; anything else may have ended it
            if line.startswith("\t") or len(line) - len(line.lstrip(" ")) < self._content_indent:
                self._list = None
            return None
        indent, bullet, number, delimiter = match.groups()
        if indent != self._list[0] or (bullet or delimiter) != self._list[1]:
            if len(indent) < self._content_indent:
                self._list = None  # another kind of marker outside the item: another list, or the end of this one
            return None
        self._items += 1
        self._content_indent = _content_indent(line, match.end())
        if bullet:
            return match.group(0)
        continued = str(self._list[2] + self._items - 1)
        if len(continued) > len(number):  # a wider marker would move the item's content: keep the list whole
            self._list = None
            return None
        return f"{indent}{continued.zfill(len(number))}{delimiter}"  # the same width: "07." counts as 7

    def _continues(self, line: str) -> bool:
        if line.startswith(("    ", "\t")):
            return True  # indented code goes on across blank lines after any block: keeping it whole is safe
        if self._current.kind == "list":
            return bool(_LIST_ITEM.match(line) or _INDENTED.match(line))
        return False

    def _close_current(self) -> str:
        block = self._current.text + "".join(self._pending_blank)
        self._seen_kinds.add(self._current.kind)
        self._current = _Block()
        self._pending_blank = []
        return block


def _content_indent(line: str, marker_end: int) -> int:
    """Where an item's content starts: after the marker and 1-4 spaces (one when more follow, or none)."""
    rest = line[marker_end:]
    spaces = len(rest) - len(rest.lstrip(" "))
    return marker_end + (1 if spaces == 0 or spaces > 4 or not rest.strip() else spaces)


def may_contain_table(text: str) -> bool:
    """True when some line looks like a table's delimiter row (``|---|---|``)."""
    return "|" in text and any(_TABLE_DELIMITER.match(line) and "-" in line for line in text.splitlines())
