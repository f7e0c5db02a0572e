"""How an answer is laid out: framed code blocks with a label and a working Copy link, quotes with bars, math as
images Parley drew, tables that fit, headings with space above, and colours that follow the theme."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication, QTextCursor, QTextDocument, QTextFormat, QTextFrame, QTextLength
from PySide6.QtWidgets import QApplication

from widgets.chat_view import ChatMessage, ChatView
from widgets.markdown_document import (
    CODE_FRAME,
    COPY_URL,
    DARK,
    HEADING_SPACING_PX,
    LIGHT,
    MATH_SOURCE,
    QUOTE_BARS,
    code_at,
)
from widgets.markdown_render import render_markdown
from widgets.safe_text import SafeDocument


def code_frames(document: QTextDocument) -> list[QTextFrame]:
    return [f for f in document.rootFrame().childFrames() if f.frameFormat().hasProperty(CODE_FRAME)]


def blocks(document: QTextDocument):
    block = document.begin()
    while block.isValid():
        yield block
        block = block.next()


def make_view(qtbot, text: str) -> ChatView:
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(700, 600)
    view.show()
    view.set_messages([ChatMessage("assistant", text)])
    return view


def test_a_code_block_is_a_framed_box_with_its_language_and_a_copy_link(qapp):
    document = render_markdown("Intro\n\n```python\nx = 1\n\n  y = 2\n```\n")
    [frame] = code_frames(document)
    frame_format = frame.frameFormat()
    assert frame_format.property(CODE_FRAME) == "python"
    assert frame_format.border() == 1 and frame_format.padding() > 0
    assert frame_format.background().color().name() == LIGHT.code_background
    cursor = QTextCursor(document)
    cursor.setPosition(frame.firstPosition())
    label = cursor.block()
    assert label.text() == "python    Copy"
    anchors = [f.fragment().charFormat().anchorHref() for f in _fragments(label)]
    assert COPY_URL in anchors
    assert code_at(document, frame.firstPosition() + 2) == "x = 1\n\n  y = 2"
    assert code_at(document, 1) is None  # "Intro" is not in a code block


def _fragments(block):
    iterator = block.begin()
    while not iterator.atEnd():
        yield iterator
        iterator += 1


def test_two_consecutive_code_blocks_stay_two(qapp):
    document = render_markdown("```\none\n```\n```js\ntwo\n```\n")
    frames = code_frames(document)
    assert len(frames) == 2
    assert [code_at(document, f.firstPosition() + 1) for f in frames] == ["one", "two"]
    assert frames[0].lastPosition() < frames[1].firstPosition()


def test_code_uses_a_fixed_font_at_the_text_size(qapp):
    document = render_markdown("```\ncode\n```\n")
    code_block = next(b for b in blocks(document) if b.text() == "code")
    char_format = code_block.begin().fragment().charFormat()
    assert char_format.fontFixedPitch()
    assert not char_format.hasProperty(QTextFormat.Property.FontPointSize)  # the same size as the text around it
    assert code_block.blockFormat().nonBreakableLines() is False  # long lines wrap (no sideways scrolling)


def test_the_copy_link_copies_the_code_of_the_block_clicked(qtbot):
    view = make_view(qtbot, "```\nfirst\n```\n\n```python\nprint('second')\n```\n")
    QGuiApplication.clipboard().setText("")
    second = code_frames(view.document())[1]
    cursor = QTextCursor(view.document())
    cursor.setPosition(second.firstPosition())
    cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
    cursor.movePosition(QTextCursor.MoveOperation.Left, n=2)  # inside "Copy"
    rect = view.cursorRect(cursor)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.center().x(), rect.center().y()))
    assert QGuiApplication.clipboard().text() == "print('second')"


def test_quotes_are_indented_and_carry_a_bar_per_level(qapp):
    document = render_markdown("- item\n\n> outer\n> > inner\n")
    outer = next(b for b in blocks(document) if b.text() == "outer")
    inner = next(b for b in blocks(document) if b.text() == "inner")
    item = next(b for b in blocks(document) if b.text().endswith("item"))
    assert outer.blockFormat().stringProperty(QUOTE_BARS) == "0"
    assert inner.blockFormat().stringProperty(QUOTE_BARS) == "0,18"
    assert inner.blockFormat().leftMargin() > outer.blockFormat().leftMargin() > 0
    assert not item.blockFormat().hasProperty(QUOTE_BARS)  # the quote is not part of the list above


def test_quote_bars_are_painted(qtbot):
    view = make_view(qtbot, "> quoted\n")
    image = view.viewport().grab().toImage()
    margin = int(view.document().documentMargin())
    block = next(b for b in blocks(view.document()) if b.text() == "quoted")
    y = int(view.document().documentLayout().blockBoundingRect(block).center().y())
    assert image.pixelColor(margin + 1, y).name() == LIGHT.quote_bar


def test_math_becomes_an_image_parley_drew(qapp):
    document = SafeDocument()
    from widgets.markdown_render import append_markdown

    append_markdown(document, "Euler: $e^{i\\pi} + 1 = 0$\n\n$$\\frac{a}{b}$$\n")
    images = [f.fragment().charFormat().toImageFormat() for b in blocks(document) for f in _fragments(b)
              if f.fragment().charFormat().isImageFormat()]
    assert [i.property(MATH_SOURCE) for i in images] == ["e^{i\\pi} + 1 = 0", "\\frac{a}{b}"]
    for image_format in images:
        assert image_format.name().startswith("parley-math:")
        resource = document.resource(QTextDocument.ResourceType.ImageResource.value, image_format.name())
        assert not resource.isNull() and resource.width() > 0
    display = next(b for b in blocks(document) if b.text() == "\ufffc")
    assert display.blockFormat().alignment() & Qt.AlignmentFlag.AlignHCenter
    assert document.refused == 0  # found among the document's own resources, nothing asked for


def test_math_that_cannot_be_drawn_is_shown_as_its_source(qapp):
    document = render_markdown("broken $\\frac{1}{$ here\n")
    assert "$\\frac{1}{$" in document.toPlainText()


def test_tables_fit_the_width_with_a_header_row(qapp):
    document = render_markdown("| a | b |\n|---|--:|\n| 1 | 2 |\n")
    [table] = [f for f in document.rootFrame().childFrames() if f.frameFormat().isTableFormat()]
    table_format = table.frameFormat().toTableFormat()
    assert table_format.width().type() == QTextLength.Type.PercentageLength and table_format.width().rawValue() == 100
    assert table.cellAt(0, 0).format().background().color().name() == LIGHT.table_header_background
    assert table.cellAt(1, 1).firstCursorPosition().blockFormat().alignment() & Qt.AlignmentFlag.AlignRight


def test_headings_have_space_above_and_shrink_by_level(qapp):
    document = render_markdown("Text\n\n# One\n\n## Two\n\n### Three\n")
    heads = {b.text(): b for b in blocks(document) if b.blockFormat().headingLevel()}
    assert set(heads) == {"One", "Two", "Three"}
    assert all(b.blockFormat().topMargin() == HEADING_SPACING_PX for b in heads.values())
    sizes = [heads[n].begin().fragment().charFormat().property(QTextFormat.Property.FontSizeAdjustment)
             for n in ("One", "Two", "Three")]
    assert sizes == sorted(sizes, reverse=True) and len(set(sizes)) == 3


def test_colours_follow_the_theme(qtbot):
    view = make_view(qtbot, "```\ncode\n```\n")
    assert code_frames(view.document())[0].frameFormat().background().color().name() == LIGHT.code_background
    view.set_dark(True)
    assert code_frames(view.document())[0].frameFormat().background().color().name() == DARK.code_background
    QApplication.processEvents()
