"""Rendering markdown into the end of a QTextDocument, incrementally and exactly.

``append_markdown`` inserts rendered markdown after the document's current content so that the result equals
Qt's own full render of the concatenated markdown. Plain fragment insertion does not: the first inserted
block takes the format of the block it lands in, an empty block is left in front of lists, tables and rules,
and a new block after a list joins that list. The fix-ups below undo exactly those effects.

``StreamingMarkdown`` keeps finished blocks (see ``markdown_blocks``) and re-renders only the unfinished tail,
at most once per frame when driven by the chat view's frame timer. ``finish`` leaves the region identical to a
full render of the whole text (tested), falling back to one full render when the splitter saw a construct
whose rendering depends on distant context.
"""

from __future__ import annotations

from PySide6.QtGui import (
    QTextBlock,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextDocumentFragment,
    QTextFormat,
)

from widgets.markdown_blocks import BlockSplitter, may_contain_table

_RULE = QTextFormat.Property.BlockTrailingHorizontalRulerWidth
_FRONT_MATTER = 0x100000  # Qt's front-matter feature bit (not in PySide's enum): hides a leading ---...--- block
MARKDOWN_FEATURES = QTextDocument.MarkdownFeature(
    QTextDocument.MarkdownFeature.MarkdownDialectGitHub.value & ~_FRONT_MATTER)
"""GitHub-flavoured markdown without front matter: an answer that starts with ``---`` shows a rule."""


def _is_rule(block: QTextBlock) -> bool:
    return block.isValid() and block.blockFormat().hasProperty(_RULE)


def _in_table(block: QTextBlock) -> bool:
    return block.isValid() and QTextCursor(block).currentTable() is not None


def render_markdown(markdown: str) -> QTextDocument:
    """Qt's full render of ``markdown`` (GitHub dialect): the reference the incremental render must equal."""
    document = QTextDocument()
    document.setMarkdown(markdown, MARKDOWN_FEATURES)
    return document


def append_markdown(document: QTextDocument, markdown: str) -> None:
    """Render ``markdown`` after the existing content, as if it had been part of one full render."""
    if document.isEmpty():
        document.setMarkdown(markdown, MARKDOWN_FEATURES)
        return
    source = render_markdown(markdown)
    cursor = QTextCursor(document)
    cursor.movePosition(QTextCursor.MoveOperation.End)
    was_empty = False
    if not was_empty:
        cursor.insertBlock(QTextBlockFormat(), QTextCharFormat())
        text_list = cursor.block().textList()
        if text_list is not None:
            text_list.remove(cursor.block())
            cursor.setBlockFormat(QTextBlockFormat())
    start = cursor.block().blockNumber()

    first_source = source.begin()
    fragment = QTextDocumentFragment(source)
    if not was_empty and first_source.text() == "" and _is_rule(first_source.next()):
        # A render that starts with a rule has an empty block before it; a full render would not.
        selection = QTextCursor(source)
        selection.setPosition(first_source.next().position())
        selection.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
        fragment = QTextDocumentFragment(selection)
        first_source = first_source.next()
    cursor.insertFragment(fragment)

    landed = document.findBlockByNumber(start)
    after = landed.next()
    stray = (not _is_rule(first_source) and landed.text() == "" and not _is_rule(landed)
             and landed.textList() is None and not _in_table(landed))
    if stray and after.isValid() and (_is_rule(after) or _in_table(after) or after.textList() is not None):
        _remove_empty_block(landed)
        landed = document.findBlockByNumber(start)
        if first_source.text() == "" and _in_table(first_source.next()):
            first_source = first_source.next()  # the removed block was the source's own block before its table

    _copy_block_formats(first_source, landed)


def _remove_empty_block(block: QTextBlock) -> None:
    """Remove an empty block by deleting the break before it; the block before keeps its formats."""
    previous = block.previous()
    block_format, char_format = previous.blockFormat(), previous.charFormat()
    remover = QTextCursor(block)
    remover.movePosition(QTextCursor.MoveOperation.PreviousCharacter, QTextCursor.MoveMode.KeepAnchor)
    remover.removeSelectedText()
    if remover.blockFormat() != block_format:
        remover.setBlockFormat(block_format)
    if remover.block().charFormat() != char_format:
        remover.setBlockCharFormat(char_format)


def _copy_block_formats(source: QTextBlock, target: QTextBlock) -> None:
    """Give each inserted block its source block's format; fragment insertion drops it for the first and last."""
    while source.isValid() and target.isValid():
        if source.textList() is None and target.textList() is None and not _in_table(source) \
                and not _in_table(target):
            block_format = source.blockFormat()
            block_format.clearProperty(QTextFormat.Property.ObjectIndex)
            fixer = QTextCursor(target)
            if target.blockFormat() != block_format:
                fixer.setBlockFormat(block_format)
            if target.charFormat() != source.charFormat():
                fixer.setBlockCharFormat(source.charFormat())
        source, target = source.next(), target.next()


def remove_from(document: QTextDocument, position: int) -> None:
    """Delete everything from ``position`` to the end, including the block break before it.

    The block before the break keeps its own formats (Qt would otherwise give it the removed block's).
    """
    cursor = QTextCursor(document)
    if position <= 0:
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.removeSelectedText()
        cursor.setBlockFormat(QTextBlockFormat())
        cursor.setBlockCharFormat(QTextCharFormat())
        return
    kept = document.findBlock(position - 1)
    block_format, char_format = kept.blockFormat(), kept.charFormat()
    cursor.setPosition(position - 1)
    cursor.movePosition(QTextCursor.MoveOperation.End, QTextCursor.MoveMode.KeepAnchor)
    cursor.removeSelectedText()
    if cursor.blockFormat() != block_format:
        cursor.setBlockFormat(block_format)
    if cursor.block().charFormat() != char_format:
        cursor.setBlockCharFormat(char_format)


class StreamingMarkdown:
    """One streaming markdown region at the end of ``document``, starting at the document's current end."""

    def __init__(self, document: QTextDocument) -> None:
        self.document = document
        self.text = ""
        self._splitter = BlockSplitter()
        # The tail's start is kept as a distance from the document's end (the region is always last), and the
        # region's start as a cursor, so content changed above the region (a tool chip) does not move them.
        self._region_anchor = QTextCursor(document)
        self._region_anchor.setPosition(self._end_position())
        self._region_anchor.setKeepPositionOnInsert(True)  # text appended after it is the region itself
        self._region_empty = True
        self._tail_from_end: int | None = None  # where the rendered tail starts, None when none is rendered
        self._pending = ""
        self.finished = False

    def _end_position(self) -> int:
        return self.document.characterCount() - 1

    def _from_end(self, position: int) -> int:
        return self.document.characterCount() - position

    def _at(self, from_end: int) -> int:
        return self.document.characterCount() - from_end

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
        # One edit block means one layout pass and one repaint for the whole frame. Qt builds table frames
        # differently inside an edit block, which the fix-ups in append_markdown cannot see, so frames that
        # render a table go without it.
        batched = not may_contain_table("".join(blocks) + tail)
        edit = QTextCursor(self.document)
        if batched:
            edit.beginEditBlock()
        try:
            if blocks or self._tail_from_end is not None:
                self._drop_tail()
            for block in blocks:
                self._append(block)
            if tail.strip():
                tail_start = self._end_position() + (0 if self.document.isEmpty() else 1)
                self._append(tail)
                self._tail_from_end = self._from_end(tail_start)
        finally:
            if batched:
                edit.endEditBlock()

    def finish(self) -> None:
        """Render everything that is left; afterwards the region equals a full render of ``text``."""
        if self.finished:
            return
        self.flush()
        self.finished = True
        if self._splitter.needs_full_render and self.text.strip():
            if not self._region_empty:
                region_start = self._region_anchor.position()
                remove_from(self.document, region_start + (1 if region_start else 0))
            append_markdown(self.document, self.text)

    def _drop_tail(self) -> None:
        if self._tail_from_end is None:
            return
        remove_from(self.document, self._at(self._tail_from_end))
        self._tail_from_end = None

    def _append(self, markdown: str) -> None:
        if not markdown.strip():
            return
        append_markdown(self.document, markdown)
        self._region_empty = False
