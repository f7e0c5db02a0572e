"""Tool chips are written as text with formats, not as HTML: spaces, indentation and markup-like text in a
call's arguments and result show exactly as they are, and the chip stays a link that expands and collapses."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QPalette, QTextCursor

from widgets.chat_view import ChatMessage, ChatView
from widgets.tool_chip_text import ToolChip

RESULT = '{\n  "x":   1,\n    "y": "<b>not bold</b> &amp; <img src=/dev/zero>"\n}'


def view_with_chip(qtbot) -> ChatView:
    view = ChatView()
    qtbot.addWidget(view)
    chip = ToolChip("c1", "read_<i>file", '{"path": "two  spaces.txt"}', status="ok", result=RESULT, duration_ms=3,
                    offset=5)
    view.set_messages([ChatMessage("user", "hi"), ChatMessage("assistant", "Look: then done.", tools=[chip])])
    return view


def chip_block_text(view: ChatView) -> str:
    block = view.document().findBlock(view.toPlainText().index("✓"))
    return block.text()


def test_a_chip_shows_its_text_literally_with_its_spaces(qtbot):
    view = view_with_chip(qtbot)
    assert chip_block_text(view) == '✓ read_<i>file(path="two  spaces.txt") · ok · 3 ms'
    cursor = QTextCursor(view.document().findBlock(view.toPlainText().index("✓")))
    cursor.movePosition(QTextCursor.MoveOperation.Right)
    link = cursor.charFormat()
    assert link.isAnchor() and link.anchorHref() == "parley-tool:c1"
    assert link.foreground().color() == view.palette().color(QPalette.ColorRole.Link)


def test_expanding_keeps_the_results_indentation_and_collapsing_restores_the_line(qtbot):
    view = view_with_chip(qtbot)
    view.anchorClicked.emit(QUrl("parley-tool:c1"))
    expanded = chip_block_text(view).split("\u2028")
    assert expanded[0] == '✓ read_<i>file(path="two  spaces.txt") · ok · 3 ms'
    assert expanded[1:] == ["arguments:", '{"path": "two  spaces.txt"}', "result:", *RESULT.splitlines()]
    assert "then done." in view.toPlainText()
    view.anchorClicked.emit(QUrl("parley-tool:c1"))
    assert chip_block_text(view) == '✓ read_<i>file(path="two  spaces.txt") · ok · 3 ms'
