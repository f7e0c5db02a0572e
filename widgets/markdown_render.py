"""Rendering markdown into the end of a QTextDocument, incrementally and exactly.

``append_markdown`` builds the markdown after the document's current content (``markdown_document``: cursor
calls only, never ``setMarkdown``/``setHtml``, in a ``SafeDocument`` that loads no resource). Appending block by
block gives the same document as one render of the whole text, so streaming can keep what is finished.

``StreamingMarkdown`` keeps finished blocks (see ``markdown_blocks``) and re-renders only the unfinished tail,
at most once per frame when driven by the chat view's frame timer. A tail longer than ``RAW_TAIL_CHARS`` (one
block that long: a paragraph of thousands of lines, a giant code block) would make every frame slow, so it is
shown as plain lines, appended as they arrive, and rendered once when its block is finished. ``finish``
leaves the region identical to a full render of the whole text (tested), falling back to one full render when
the splitter saw a construct whose rendering depends on distant context.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtGui import QTextBlockFormat, QTextCharFormat, QTextCursor, QTextDocument

from widgets.markdown_blocks import BlockSplitter
from widgets.markdown_document import append_tokens
from widgets.safe_text import SafeDocument, visible_controls

RAW_TAIL_CHARS = 16_000  # an unfinished block longer than this streams as plain lines until it is finished


def render_markdown(markdown: str) -> QTextDocument:
    """A full render of ``markdown`` in a new document: the reference the incremental render must equal."""
    document = SafeDocument()
    append_markdown(document, markdown)
    return document


def append_markdown(document: QTextDocument, markdown: str) -> None:
    """Render ``markdown`` after the existing content, as if it had been part of one full render."""
    if markdown.strip():
        append_tokens(document, markdown)


@dataclass(frozen=True)
class EndMark:
    """The document's end as it was, so what was appended after it can be removed exactly.

    ``anchor`` stays where the end was: text inserted at it goes after it, and content changed above it (a tool
    chip) moves it along.
    """

    anchor: QTextCursor
    block_format: QTextBlockFormat
    char_format: QTextCharFormat


def mark_end(document: QTextDocument) -> EndMark:
    cursor = QTextCursor(document)
    cursor.movePosition(QTextCursor.MoveOperation.End)
    cursor.setKeepPositionOnInsert(True)
    block = cursor.block()
    return EndMark(cursor, block.blockFormat(), block.charFormat())


def remove_after(document: QTextDocument, mark: EndMark) -> None:
    """Delete everything appended after ``mark`` and give the last block back its formats."""
    cursor = QTextCursor(document)
    cursor.setPosition(mark.anchor.position())
    cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
    cursor.removeSelectedText()
    if cursor.blockFormat() != mark.block_format:
        cursor.setBlockFormat(mark.block_format)
    if cursor.block().charFormat() != mark.char_format:
        cursor.setBlockCharFormat(mark.char_format)


class StreamingMarkdown:
    """One streaming markdown region at the end of ``document``, starting at the document's current end."""

    def __init__(self, document: QTextDocument) -> None:
        self.document = document
        self.text = ""
        self._splitter = BlockSplitter()
        self._region = mark_end(document)
        self._tail: EndMark | None = None  # the end before the rendered tail, None when none is rendered
        self._raw_shown: int | None = None  # characters of the tail shown as plain lines; None: tail rendered
        self._pending = ""
        self.finished = False

    def push(self, delta: str) -> None:
        """Queue text; nothing is rendered until ``flush``."""
        self._pending += delta

    @property
    def dirty(self) -> bool:
        return bool(self._pending)

    def flush(self) -> None:
        """Render what arrived since the last flush: new finished blocks once, then the tail again."""
        if not self._pending or self.finished:
            return
        delta, self._pending = self._pending, ""
        self.text += delta
        blocks = self._splitter.feed(delta)
        tail = self._splitter.tail
        # One edit block means one layout pass and one repaint for the whole frame.
        edit = QTextCursor(self.document)
        edit.beginEditBlock()
        try:
            if not blocks and self._raw_shown is not None:
                self._append_raw(tail)
                return
            if self._tail is not None:
                remove_after(self.document, self._tail)
                self._tail = None
                self._raw_shown = None
            for block in blocks:
                append_markdown(self.document, block)
            if tail.strip():
                self._tail = mark_end(self.document)
                if len(tail) > RAW_TAIL_CHARS:
                    self._raw_shown = 0
                    self._append_raw(tail)
                else:
                    append_markdown(self.document, tail)
        finally:
            edit.endEditBlock()

    def _append_raw(self, tail: str) -> None:
        """Show the part of ``tail`` not shown yet as plain text, one block per line."""
        shown = self._raw_shown or 0
        new = tail[shown:]
        if not new:
            return
        cursor = QTextCursor(self.document)
        cursor.movePosition(QTextCursor.MoveOperation.End)
        plain_block, plain_char = QTextBlockFormat(), QTextCharFormat()
        lines = new.split("\n")
        if shown == 0:
            cursor.insertBlock(plain_block, plain_char)
        cursor.insertText(visible_controls(lines[0]), plain_char)
        for line in lines[1:]:
            cursor.insertBlock(plain_block, plain_char)
            if line:
                cursor.insertText(visible_controls(line), plain_char)
        self._raw_shown = len(tail)

    def finish(self) -> None:
        """Render everything that is left; afterwards the region equals a full render of ``text``."""
        if self.finished:
            return
        self.flush()
        self.finished = True
        if self._raw_shown is not None and self._tail is not None:
            remove_after(self.document, self._tail)
            self._tail, self._raw_shown = None, None
            if not self._splitter.needs_full_render:
                append_markdown(self.document, self._splitter.tail)
        if self._splitter.needs_full_render and self.text.strip():
            remove_after(self.document, self._region)
            append_markdown(self.document, self.text)
