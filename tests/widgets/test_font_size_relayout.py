"""A chat font-size change (Preferences > Appearance) reaches answers drawn before it: list indents and math."""

from __future__ import annotations

from PySide6.QtGui import QTextDocument

from orchestration.events import ContentDelta, Done, EventFactory, RunStarted
from tests.widgets.test_chat_view import feed, make_view
from widgets.chat_view import ChatMessage
from widgets.markdown_document import MATH_SOURCE

ANSWER = "Steps:\n\n- first item\n- second item\n\nEuler: $e^{i\\pi} + 1 = 0$\n"


def blocks(document: QTextDocument):
    block = document.begin()
    while block.isValid():
        yield block
        block = block.next()


def item_indent(document: QTextDocument) -> float:
    """The hanging indent of the first list item (its marker's width)."""
    item = next(b for b in blocks(document) if b.text().endswith("first item"))
    return -item.blockFormat().textIndent()


def math_width(document: QTextDocument) -> float:
    for block in blocks(document):
        fragments = block.begin()
        while not fragments.atEnd():
            char_format = fragments.fragment().charFormat()
            if char_format.isImageFormat() and char_format.toImageFormat().property(MATH_SOURCE):
                return char_format.toImageFormat().width()
            fragments += 1
    raise AssertionError("no math image in the chat")


def test_a_font_size_change_resizes_list_indents_and_math_already_shown(qtbot):
    view = make_view(qtbot)
    view.set_font_size(10)
    view.set_messages([ChatMessage("user", "Explain"), ChatMessage("assistant", ANSWER)])
    small_indent, small_math = item_indent(view.document()), math_width(view.document())

    view.set_font_size(20)

    assert item_indent(view.document()) > small_indent * 1.5
    assert math_width(view.document()) > small_math * 1.5
    assert "second item" in view.toPlainText()


def test_a_font_size_change_while_an_answer_streams_reaches_it_once_it_ends(qtbot):
    view = make_view(qtbot)
    view.set_font_size(10)
    f = EventFactory("r")
    feed(view, [f.make(RunStarted, provider="p", model="m"), f.make(ContentDelta, content=ANSWER)])
    view.flush()
    small_indent, small_math = item_indent(view.document()), math_width(view.document())

    view.set_font_size(20)
    feed(view, [f.make(ContentDelta, content="\nDone.\n"), f.make(Done, finish_reason="stop")])

    assert item_indent(view.document()) > small_indent * 1.5
    assert math_width(view.document()) > small_math * 1.5
    assert view.toPlainText().rstrip().endswith("Done.")
