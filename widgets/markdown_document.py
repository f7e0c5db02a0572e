"""Building an answer's QTextDocument from markdown tokens with QTextCursor calls, in linear time.

Nothing here hands model text to Qt as HTML or markdown (``setHtml``/``setMarkdown``/``insertHtml``): every
paragraph, list item, code block and table is made with ``insertBlock``/``insertText``/``insertFrame``/
``insertTable`` and explicit formats, so an answer cannot make Qt load a resource, and the cost is one pass over
the tokens. Lists are drawn as indented blocks with their marker as text (``QTextList`` renumbers and re-lays
out every item on each insert, which made long lists quadratic).

Appending is exact: rendering markdown A and then B after it gives the same document as rendering A + B when A
ends at a block boundary (``markdown_blocks``), which is what lets streaming re-render only the unfinished tail.
The rule that makes it so: each block element starts a new block, except that it takes over the last block when
that block is a *free* one: the empty first block of an empty document, or the empty block Qt leaves after a
frame or table (marked with ``FREE_BLOCK``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt
from PySide6.QtGui import (
    QBrush,
    QColor,
    QFont,
    QFontDatabase,
    QFontMetricsF,
    QTextBlockFormat,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextFrame,
    QTextFrameFormat,
    QTextImageFormat,
    QTextLength,
    QTextTableCellFormat,
    QTextTableFormat,
)

from widgets.render_limits import (
    CODE_HIGHLIGHT_MAX_LINES,
    CODE_MAX_LINES,
    more_lines_note,
    more_rows_note,
    table_rows_shown,
    with_breaks,
    without_breaks,
)
from widgets.safe_text import visible_controls

if TYPE_CHECKING:  # the parser (pyromark) and the math renderer (QtSvg) load with the first answer drawn
    from widgets.markdown_parser import Token

FREE_BLOCK = QTextFormat.Property.UserProperty.value + 1  # block property: an empty block the next element takes
CODE_FRAME = QTextFormat.Property.UserProperty.value + 2  # frame property: a code block (its language, may be "")
CODE_LABEL = QTextFormat.Property.UserProperty.value + 3  # block property: a code block's label line (not code)
QUOTE_BARS = QTextFormat.Property.UserProperty.value + 4  # block property: "x,x,..." where the view draws quote bars
MATH_SOURCE = QTextFormat.Property.UserProperty.value + 5  # image property: the LaTeX an image was drawn from
CODE_FULL = QTextFormat.Property.UserProperty.value + 6  # frame property: a code block's whole code, when cut
COPY_URL = "parley-copy:code"  # the Copy link of a code block; the view finds the block from where it was clicked

LIST_INDENT_PX = 24
QUOTE_INDENT_PX = 18
MAX_NESTING = 12  # quotes and lists deeper than this are drawn at this depth (content is kept)
PARAGRAPH_SPACING_PX = 8
ITEM_SPACING_PX = 2
HEADING_SPACING_PX = 16  # space above a heading
CODE_PADDING_PX = 8
CODE_MARGIN_PX = 6
TABLE_CELL_PADDING_PX = 4
BULLETS = ("•", "◦", "▪")
HEADING_SIZE = {1: 3, 2: 2, 3: 1, 4: 0, 5: 0, 6: 0}  # Qt's FontSizeAdjustment steps, relative to the text size


@dataclass(frozen=True)
class AnswerColors:
    """The colours an answer is drawn with; one set per theme."""

    text: str
    code_background: str
    code_border: str
    code_label: str
    inline_code_background: str
    quote_bar: str
    link: str
    muted: str
    table_border: str
    table_header_background: str


# link colours are the theme palette's Link role (widgets/theme.py), so chips and answer links match
LIGHT = AnswerColors(text="#1f2328", code_background="#f6f8fa", code_border="#d0d7de", code_label="#57606a",
                     inline_code_background="#eff1f3", quote_bar="#d0d7de", link="#2459c9", muted="#6e7781",
                     table_border="#d0d7de", table_header_background="#f6f8fa")
DARK = AnswerColors(text="#e6edf3", code_background="#161b22", code_border="#30363d", code_label="#8b949e",
                    inline_code_background="#2d333b", quote_bar="#3d444d", link="#7aa7ff", muted="#8b949e",
                    table_border="#3d444d", table_header_background="#1c2128")


def colors_of(document: QTextDocument) -> AnswerColors:
    """The colours set on ``document`` (``SafeDocument.colors``), light by default."""
    colors = getattr(document, "colors", None)
    return colors if isinstance(colors, AnswerColors) else LIGHT


@lru_cache(maxsize=1)
def _fixed_family() -> str:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont).family()


def is_free(block_format: QTextBlockFormat) -> bool:
    return block_format.hasProperty(FREE_BLOCK)


def free_block_format() -> QTextBlockFormat:
    block_format = QTextBlockFormat()
    block_format.setProperty(FREE_BLOCK, True)
    return block_format


def ends_free(document: QTextDocument) -> bool:
    """True when the next block element takes over the last block instead of adding one."""
    block = document.lastBlock()
    if block.text() or block.textList() is not None:
        return False
    block_format = block.blockFormat()
    return is_free(block_format) or (document.blockCount() == 1 and block_format == QTextBlockFormat())


def start_block(document: QTextDocument, block_format: QTextBlockFormat,
                char_format: QTextCharFormat | None = None) -> QTextCursor:
    """A cursor at a new last block with these formats (taking over a free last block instead of adding one)."""
    cursor = QTextCursor(document)
    cursor.movePosition(QTextCursor.MoveOperation.End)
    char_format = char_format or QTextCharFormat()
    if ends_free(document):
        cursor.setBlockFormat(block_format)
        cursor.setBlockCharFormat(char_format)
    else:
        cursor.insertBlock(block_format, char_format)
    return cursor


FORMAT_CACHE_SIZE = 4_096
_CHAR_FORMATS: dict[tuple[AnswerColors, str], dict[tuple[Any, ...], QTextCharFormat]] = {}
_BLOCK_FORMATS: dict[AnswerColors, dict[tuple[Any, ...], QTextBlockFormat]] = {}
_MARKER_WIDTHS: dict[str, dict[str, float]] = {}


class _Builder:
    """Turns tokens into blocks at the end of one document. One instance per append."""

    def __init__(self, document: QTextDocument) -> None:
        self.document = document
        self.colors = colors_of(document)
        self.cursor = QTextCursor(document)
        self.cursor.movePosition(QTextCursor.MoveOperation.End)
        self.free = ends_free(document)
        self.fixed_family = _fixed_family()
        self.font = document.defaultFont()
        # block containers: ("quote", 0) or ("list", next number or None); margin is their total indent
        self.containers: list[list[Any]] = []
        self.margin = 0
        self.quote_level = 0
        self.quote_bars: list[int] = []  # the left margin at which each open quote began
        self.list_depth = 0
        self.plain = QTextCharFormat()
        self.after_display = False  # display math ended the line: text after it starts a new block
        self.item_open = False  # a list item's block was made and its first paragraph goes into it
        self.heading = 0
        self.in_code = False
        # inline state
        self.strong = 0
        self.emphasis = 0
        self.strike = 0
        self.links: list[str] = []
        self.image: list[str] | None = None  # alt text being collected
        self.image_url = ""
        self.table: list[Token] | None = None
        self.table_depth = 0
        # Formats are values: made once per process and kept (appends during streaming are many and small).
        self._char_cache = _CHAR_FORMATS.setdefault((self.colors, self.fixed_family), {})
        self._block_cache = _BLOCK_FORMATS.setdefault(self.colors, {})
        self._marker_width = _MARKER_WIDTHS.setdefault(self.font.key(), {})

    # --- formats --------------------------------------------------------------------------------------------
    def char_format(self, code: bool = False) -> QTextCharFormat:
        key = (self.strong > 0 or self.heading > 0, self.emphasis > 0, self.strike > 0, code,
               self.links[-1] if self.links else None, self.heading)
        cached = self._char_cache.get(key)
        if cached is not None:
            return cached
        fmt = QTextCharFormat()
        if key[0]:
            fmt.setFontWeight(QFont.Weight.Bold)
        if key[1]:
            fmt.setFontItalic(True)
        if key[2]:
            fmt.setFontStrikeOut(True)
        if code:
            fmt.setFontFamilies([self.fixed_family])
            fmt.setFontFixedPitch(True)
            fmt.setBackground(QColor(self.colors.inline_code_background))
        if key[4] is not None:
            fmt.setAnchor(True)
            fmt.setAnchorHref(key[4])
            fmt.setForeground(QColor(self.colors.link))
            fmt.setFontUnderline(True)
        if self.heading:
            fmt.setProperty(QTextFormat.Property.FontSizeAdjustment, HEADING_SIZE.get(self.heading, 0))
        if len(self._char_cache) > FORMAT_CACHE_SIZE:  # link targets make new keys: keep the cache bounded
            self._char_cache.clear()
        self._char_cache[key] = fmt
        return fmt

    def block_format(self, kind: str, extra: Any = None, indent: float = 0) -> QTextBlockFormat:
        key = (kind, extra, self.margin, self.quote_level, indent, self.after_display)
        cached = self._block_cache.get(key)
        if cached is not None:
            return cached
        fmt = QTextBlockFormat()
        fmt.setLeftMargin(self.margin)
        if self.quote_level:
            fmt.setProperty(QTextFormat.Property.BlockQuoteLevel, self.quote_level)
            fmt.setProperty(QUOTE_BARS, ",".join(str(x) for x in self.quote_bars[:MAX_NESTING]))
        if kind == "paragraph":
            fmt.setBottomMargin(ITEM_SPACING_PX if self.containers and self.containers[-1][0] == "list"
                                else PARAGRAPH_SPACING_PX)
        elif kind == "item":
            fmt.setBottomMargin(ITEM_SPACING_PX)
            fmt.setTextIndent(-indent)
        elif kind == "heading":
            fmt.setHeadingLevel(extra)
            fmt.setTopMargin(HEADING_SPACING_PX)
            fmt.setBottomMargin(PARAGRAPH_SPACING_PX // 2)
        elif kind == "display":
            fmt.setAlignment(Qt.AlignmentFlag.AlignHCenter)
            fmt.setTopMargin(PARAGRAPH_SPACING_PX // 2)
            fmt.setBottomMargin(PARAGRAPH_SPACING_PX // 2)
        elif kind == "code":
            fmt.setLeftMargin(0)
            fmt.clearProperty(QTextFormat.Property.BlockQuoteLevel)
            fmt.clearProperty(QUOTE_BARS)
            fmt.setProperty(QTextFormat.Property.BlockCodeLanguage, extra)
        elif kind == "label":
            fmt.setLeftMargin(0)
            fmt.clearProperty(QTextFormat.Property.BlockQuoteLevel)
            fmt.clearProperty(QUOTE_BARS)
            fmt.setProperty(CODE_LABEL, True)
            fmt.setBottomMargin(4)
        elif kind == "rule":
            fmt.setProperty(QTextFormat.Property.BlockTrailingHorizontalRulerWidth,
                            QTextLength(QTextLength.Type.PercentageLength, 100))
            fmt.setBottomMargin(PARAGRAPH_SPACING_PX)
        if len(self._block_cache) > FORMAT_CACHE_SIZE:
            self._block_cache.clear()
        self._block_cache[key] = fmt
        return fmt

    # --- blocks ---------------------------------------------------------------------------------------------
    def new_block(self, block_format: QTextBlockFormat, char_format: QTextCharFormat | None = None) -> None:
        char_format = char_format or QTextCharFormat()
        self.after_display = False
        if self.free:
            self.cursor.setBlockFormat(block_format)
            self.cursor.setBlockCharFormat(char_format)
            self.free = False
        else:
            self.cursor.insertBlock(block_format, char_format)

    def leave_frame(self, frame: QTextFrame) -> None:
        """Continue in the empty block after ``frame`` and mark it free."""
        self.cursor.setPosition(frame.lastPosition() + 1)
        self.cursor.setBlockFormat(free_block_format())
        self.cursor.setBlockCharFormat(QTextCharFormat())
        self.free = True

    def text(self, text: str, code: bool = False) -> None:
        if self.image is not None:
            self.image.append(text)
            return
        if self.free or self.after_display:  # text outside any block element, or after display math
            self.after_display = False
            self.new_block(self.block_format("paragraph"))
        self.cursor.insertText(self.breakable(visible_controls(text)), self.char_format(code))

    def breakable(self, text: str) -> str:
        """``text`` with break opportunities in a long unbroken run (widgets/render_limits.py)."""
        shown = with_breaks(text)
        if shown is not text:
            self.document.soft_breaks = True  # type: ignore[attr-defined]  # copies take them out again
        return shown

    def math(self, latex: str, display: bool) -> None:
        from widgets.math_render import math_image

        size = self.document.defaultFont().pointSizeF() * 4 / 3  # points to pixels at 96 dpi
        drawn = math_image(latex, round(size * (1.15 if display else 1.0), 1), self.colors.text, display)
        if drawn is None:
            self.text(f"$${latex}$$" if display else f"${latex}$", code=True)
            return
        url, image = drawn
        self.document.addResource(QTextDocument.ResourceType.ImageResource.value, url, image)
        image_format = QTextImageFormat()
        image_format.setName(url.toString())
        image_format.setWidth(image.width() / image.devicePixelRatio())
        image_format.setHeight(image.height() / image.devicePixelRatio())
        image_format.setProperty(MATH_SOURCE, latex)
        if self.links:
            image_format.setAnchor(True)
            image_format.setAnchorHref(self.links[-1])
        if display:
            self.after_display = False
            if self.free or self.cursor.block().length() > 1:
                self.free = False
                self.cursor.insertBlock(self.block_format("display"), QTextCharFormat())
            else:
                self.cursor.setBlockFormat(self.block_format("display"))
            self.cursor.insertImage(image_format)
            self.after_display = True
        else:
            image_format.setVerticalAlignment(QTextCharFormat.VerticalAlignment.AlignMiddle)
            if self.free or self.after_display:
                self.text("")
            self.cursor.insertImage(image_format)

    def push_container(self, kind: str, value: Any) -> None:
        if kind == "quote":
            self.document.has_quotes = True  # type: ignore[attr-defined]  # the view paints bars only then
            self.quote_bars.append(self.margin)
        else:
            self.list_depth += 1
        self.containers.append([kind, value])
        if len(self.containers) <= MAX_NESTING:
            self.margin += QUOTE_INDENT_PX if kind == "quote" else LIST_INDENT_PX
        if kind == "quote":
            self.quote_level += 1

    def pop_container(self) -> None:
        kind, _ = self.containers.pop()
        if len(self.containers) < MAX_NESTING:
            self.margin -= QUOTE_INDENT_PX if kind == "quote" else LIST_INDENT_PX
        if kind == "quote":
            self.quote_level -= 1
            self.quote_bars.pop()
        else:
            self.list_depth -= 1

    def start_item(self) -> None:
        current = self.containers[-1]
        if current[1] is None:
            marker = BULLETS[(self.list_depth - 1) % len(BULLETS)] + " "
        else:
            marker = f"{current[1]}. "
            current[1] += 1
        width = self._marker_width.get(marker)
        if width is None:
            width = self._marker_width[marker] = QFontMetricsF(self.font).horizontalAdvance(marker)
        self.new_block(self.block_format("item", None, width))
        self.cursor.insertText(marker, self.plain)
        self.item_open = True

    def code_block(self, language: str, code: str) -> None:
        frame_format = QTextFrameFormat()
        frame_format.setBackground(QColor(self.colors.code_background))
        frame_format.setBorder(1)
        frame_format.setBorderBrush(QBrush(QColor(self.colors.code_border)))
        frame_format.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        frame_format.setPadding(CODE_PADDING_PX)
        frame_format.setTopMargin(CODE_MARGIN_PX)
        frame_format.setBottomMargin(CODE_MARGIN_PX)
        frame_format.setLeftMargin(self.margin)
        frame_format.setProperty(CODE_FRAME, language)
        frame = self.cursor.insertFrame(frame_format)
        label = QTextCharFormat()
        label.setForeground(QColor(self.colors.code_label))
        label.setFontPointSize(self.document.defaultFont().pointSizeF() * 0.85)
        copy = QTextCharFormat(label)
        copy.setAnchor(True)
        copy.setAnchorHref(COPY_URL)
        copy.setForeground(QColor(self.colors.link))
        self.cursor.setBlockFormat(self.block_format("label"))
        self.cursor.insertText(f"{language or 'code'}    ", label)
        self.cursor.insertText("Copy", copy)
        code_char = QTextCharFormat()
        code_char.setFontFamilies([self.fixed_family])
        code_char.setFontFixedPitch(True)
        lines = code.split("\n")
        if len(lines) > 1 and lines[-1] == "":
            lines.pop()
        # a long block goes without colours, and only its first lines are laid out (widgets/render_limits.py)
        code_block = self.block_format("code", language if len(lines) <= CODE_HIGHLIGHT_MAX_LINES else "")
        hidden = len(lines) - CODE_MAX_LINES
        if hidden > 0:
            frame_format.setProperty(CODE_FULL, "\n".join(lines))
            frame.setFrameFormat(frame_format)
            lines = lines[:CODE_MAX_LINES]
        for line in lines:
            self.cursor.insertBlock(code_block, code_char)
            if line:
                self.cursor.insertText(self.breakable(visible_controls(line)), code_char)
        if hidden > 0:
            self.cursor.insertBlock(self.block_format("label"), label)
            self.cursor.insertText(more_lines_note(hidden), label)
        self.leave_frame(frame)

    def table_block(self, table_tokens: list[Token], alignments: tuple[str, ...]) -> None:
        rows: list[list[list[Token]]] = []
        cell: list[Token] | None = None
        for token in table_tokens:
            kind, tag = token[0], token[1]
            if kind == "start" and tag in ("TableHead", "TableRow"):
                rows.append([])
            elif kind == "start" and tag == "TableCell":
                cell = []
            elif kind == "end" and tag == "TableCell":
                if rows and cell is not None:
                    rows[-1].append(cell)
                cell = None
            elif cell is not None:
                cell.append(token)
        columns = max(1, len(alignments), *(len(r) for r in rows)) if rows else 1
        if not rows:
            return
        shown_rows = table_rows_shown(columns)
        hidden = len(rows) - (shown_rows + 1)  # the header and the first rows are laid out
        if hidden > 0:
            rows = rows[:shown_rows + 1]
        table_format = QTextTableFormat()
        table_format.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
        table_format.setBorder(1)
        table_format.setBorderBrush(QBrush(QColor(self.colors.table_border)))
        table_format.setBorderCollapse(True)
        table_format.setCellPadding(TABLE_CELL_PADDING_PX)
        table_format.setCellSpacing(0)
        table_format.setLeftMargin(self.margin)
        table_format.setTopMargin(CODE_MARGIN_PX)
        table_format.setBottomMargin(CODE_MARGIN_PX)
        table = self.cursor.insertTable(len(rows), columns, table_format)
        header_cell = QTextTableCellFormat()
        header_cell.setBackground(QColor(self.colors.table_header_background))
        outer = self.cursor
        saved = (self.containers, self.margin, self.quote_level)
        self.containers, self.margin, self.quote_level = [], 0, 0
        for r, row in enumerate(rows):
            if r == 0:
                self.strong += 1
            for c, cell_tokens in enumerate(row[:columns]):
                table_cell = table.cellAt(r, c)
                if r == 0:
                    table_cell.setFormat(header_cell)
                self.cursor = table_cell.firstCursorPosition()
                align = alignments[c] if c < len(alignments) else "None"
                if align in ("Center", "Right"):
                    block_format = QTextBlockFormat()
                    block_format.setAlignment(Qt.AlignmentFlag.AlignHCenter if align == "Center"
                                              else Qt.AlignmentFlag.AlignRight)
                    self.cursor.setBlockFormat(block_format)
                self.free = False
                self.inline_tokens(cell_tokens)
            if r == 0:
                self.strong -= 1
        self.containers, self.margin, self.quote_level = saved
        self.cursor = outer
        self.leave_frame(table)
        if hidden > 0:
            self.new_block(self.block_format("paragraph"))
            self.cursor.insertText(more_rows_note(hidden), self.char_format())

    def inline_tokens(self, items: Iterable[Token]) -> None:
        for token in items:
            self.token(token)

    # --- dispatch -------------------------------------------------------------------------------------------
    def token(self, token: Token) -> None:
        kind, tag, value = token
        if self.table is not None:
            if kind == "start" and tag == "Table":
                self.table_depth += 1
            elif kind == "end" and tag == "Table":
                if self.table_depth == 0:
                    collected, self.table = self.table, None
                    self.table_block(collected, self.table_alignments)
                    return
                self.table_depth -= 1
            self.table.append(token)
            return
        if kind == "text":
            if self.in_code:
                self.code_text.append(value)
            else:
                self.text(value)
        elif kind == "start":
            self.start(tag, value)
        elif kind == "end":
            self.end(tag)
        elif kind == "code":
            self.text(value, code=True)
        elif kind == "html":
            if self.in_code:
                self.code_text.append(value)
            else:
                self.text(value.rstrip("\n").replace("\n", "\u2028") if self.html_block else value)
        elif kind == "break":
            if not self.after_display:  # a line break right after display math is the end of its line
                self.text(" " if tag == "soft" else "\u2028")
        elif kind == "math":
            if self.image is not None:
                self.image.append(value)
            else:
                self.math(value, display=tag == "display")
        elif kind == "rule":
            self.new_block(self.block_format("rule"))
            self.item_open = False
        elif kind == "task":
            self.text("☑ " if value else "☐ ")

    html_block = False
    code_text: list[str]
    table_alignments: tuple[str, ...] = ()

    def start(self, tag: str, value: Any) -> None:
        if tag == "Paragraph":
            if self.item_open:
                self.item_open = False
            else:
                self.new_block(self.block_format("paragraph"))
        elif tag == "Heading":
            level = int(str(value.get("level", "H1"))[1:]) if isinstance(value, dict) else 1
            self.heading = level
            self.new_block(self.block_format("heading", level), self.char_format())
            self.item_open = False
        elif tag == "Emphasis":
            self.emphasis += 1
        elif tag == "Strong":
            self.strong += 1
        elif tag == "Strikethrough":
            self.strike += 1
        elif tag == "Link":
            self.links.append(str(value.get("dest_url", "")) if isinstance(value, dict) else "")
        elif tag == "Image":
            self.image = []
            self.image_url = str(value.get("dest_url", "")) if isinstance(value, dict) else ""
        elif tag == "BlockQuote":
            self.item_open = False
            self.push_container("quote", None)
        elif tag == "List":
            self.item_open = False
            self.push_container("list", value if isinstance(value, int) else None)
        elif tag == "Item":
            self.start_item()
        elif tag == "CodeBlock":
            self.in_code = True
            self.code_text = []
            self.code_language = str(value.get("Fenced", "")) if isinstance(value, dict) else ""
        elif tag == "HtmlBlock":
            self.html_block = True
            if self.item_open:
                self.item_open = False
            else:
                self.new_block(self.block_format("paragraph"))
        elif tag == "Table":
            self.item_open = False
            self.table = []
            self.table_depth = 0
            self.table_alignments = tuple(value) if isinstance(value, tuple | list) else ()

    def end(self, tag: str) -> None:
        if tag in ("Paragraph", "HtmlBlock"):
            self.html_block = False
            self.item_open = False
            self.after_display = False
        elif tag == "Heading":
            self.heading = 0
        elif tag == "Emphasis":
            self.emphasis -= 1
        elif tag == "Strong":
            self.strong -= 1
        elif tag == "Strikethrough":
            self.strike -= 1
        elif tag == "Link":
            if self.links:
                self.links.pop()
        elif tag == "Image":
            alt, self.image = "".join(self.image or []), None
            url = self.image_url
            shown = f"[image: {alt} — {url}]" if alt else f"[image: {url}]"
            if url.lower().startswith(("http://", "https://")):
                self.links.append(url)
                self.text(shown)
                self.links.pop()
            else:
                self.text(shown)
        elif tag in ("BlockQuote", "List"):
            self.item_open = False
            if self.containers:
                self.pop_container()
        elif tag == "Item":
            self.item_open = False
        elif tag == "CodeBlock":
            self.in_code = False
            self.item_open = False
            self.code_block(self.code_language, "".join(self.code_text))

    def run(self, items: Iterable[Token]) -> None:
        for token in items:
            self.token(token)


def append_tokens(document: QTextDocument, markdown: str) -> None:
    """Render ``markdown`` after the document's content (one edit block: one layout pass)."""
    from widgets.markdown_parser import tokens

    builder = _Builder(document)
    builder.cursor.beginEditBlock()
    try:
        builder.run(tokens(markdown))
    finally:
        builder.cursor.endEditBlock()


def code_at(document: QTextDocument, position: int) -> str | None:
    """The code of the code block containing ``position`` (without its label line), or None."""
    cursor = QTextCursor(document)
    cursor.setPosition(max(0, min(position, document.characterCount() - 1)))
    frame = cursor.currentFrame()
    while frame is not None and not frame.frameFormat().hasProperty(CODE_FRAME):
        frame = frame.parentFrame()
    if frame is None:
        return None
    if frame.frameFormat().hasProperty(CODE_FULL):  # a block cut to its first lines (render_limits)
        return frame.frameFormat().stringProperty(CODE_FULL)
    lines = []
    block = document.findBlock(frame.firstPosition())
    while block.isValid() and block.position() <= frame.lastPosition():
        if not block.blockFormat().hasProperty(CODE_LABEL):
            lines.append(block.text())
        block = block.next()
    code = "\n".join(lines)
    return without_breaks(code) if getattr(document, "soft_breaks", False) else code
