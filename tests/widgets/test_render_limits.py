"""A huge answer is laid out within named limits, with the rest reachable (user pass 4, item 1).

Reopening a conversation that held a 200,000-character line took seconds: Qt wraps a run with no break
opportunity in quadratic time. A 50,000-line code block (Pygments colours, one block per line) and a 2,000-row
table took longer still. These tests check the limits of widgets/render_limits.py in the real chat view and
that nothing is lost: copying gives back the exact text. The time itself is measured in bench/hostile_open.py.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QGuiApplication, QTextFormat, QTextTable

from widgets.chat_view import ChatMessage, ChatView
from widgets.render_limits import (
    CODE_HIGHLIGHT_MAX_LINES,
    CODE_MAX_LINES,
    LOADING_NOTE,
    LOADING_NOTE_CHARS,
    LONG_RUN_CHARS,
    MESSAGE_LAYOUT_MAX_CHARS,
    TABLE_MAX_CELLS,
    TABLE_MAX_ROWS,
    TABLE_MIN_ROWS,
    table_rows_shown,
    with_breaks,
    without_breaks,
)

LINE = "x" * 200_000


def _view(qtbot, answer: str) -> ChatView:
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(700, 800)
    view.show()
    view.set_messages([ChatMessage("user", "Show me"), ChatMessage("assistant", answer)])
    return view


def _longest_unbroken_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"[^\s\u200b]+", text)), default=0)


def test_a_long_line_gets_break_opportunities_and_copies_back_whole(qtbot):
    view = _view(qtbot, f"Before {LINE} after")
    assert _longest_unbroken_run(view.document().toPlainText()) < LONG_RUN_CHARS
    view.selectAll()
    copied = view.createMimeDataFromSelection()
    assert f"Before {LINE} after" in copied.text()  # the breaks were the view's, not the answer's
    assert "\u200b" not in copied.html()


def test_a_long_line_in_a_code_block_copies_back_whole(qtbot):
    view = _view(qtbot, f"```\n{LINE}\n```")
    assert _longest_unbroken_run(view.document().toPlainText()) < LONG_RUN_CHARS
    position = view.document().toPlainText().index("xxxx")
    assert view.copy_code_at(position)
    assert QGuiApplication.clipboard().text() == LINE


def test_a_huge_code_block_shows_its_first_lines_plain_and_copies_whole(qtbot):
    code = "\n".join(f"print({i})" for i in range(50_000))
    view = _view(qtbot, f"```python\n{code}\n```")
    text = view.document().toPlainText()
    assert f"print({CODE_MAX_LINES - 1})" in text and f"print({CODE_MAX_LINES})\n" not in text
    assert f"{50_000 - CODE_MAX_LINES:,} more lines not shown here" in text
    coloured = [b for b in _blocks(view) if b.blockFormat().hasProperty(QTextFormat.Property.BlockCodeLanguage)
                and b.blockFormat().stringProperty(QTextFormat.Property.BlockCodeLanguage)]
    assert coloured == []  # past CODE_HIGHLIGHT_MAX_LINES no block asks the highlighter for colours
    assert view.copy_code_at(text.index("print(7)"))
    assert QGuiApplication.clipboard().text() == code  # the Copy link still copies every line


def test_a_short_code_block_keeps_its_colours(qtbot):
    code = "\n".join(f"print({i})" for i in range(CODE_HIGHLIGHT_MAX_LINES))
    view = _view(qtbot, f"```python\n{code}\n```")
    languages = {b.blockFormat().stringProperty(QTextFormat.Property.BlockCodeLanguage) for b in _blocks(view)}
    assert "python" in languages


def test_a_huge_table_shows_its_first_rows_and_says_how_many_more(qtbot):
    rows = 2_000
    table = "| a | b |\n|---|---|\n" + "\n".join(f"| r{i} | v{i} |" for i in range(rows))
    view = _view(qtbot, table)
    tables = [f for f in view.document().rootFrame().childFrames() if isinstance(f, QTextTable)]
    assert [t.rows() for t in tables] == [TABLE_MAX_ROWS + 1]  # the header and the first rows (2 columns)
    assert f"{rows - TABLE_MAX_ROWS:,} more rows not shown here" in view.document().toPlainText()
    assert view.messages()[-1].text == table  # the message (and its Copy action) keeps every row


def test_breaks_go_only_into_long_runs():
    short = "a" * (LONG_RUN_CHARS - 1) + " word"
    assert with_breaks(short) is short
    thai_like = ("\u0e01" * 500 + "\u200b") * 4  # a text's own zero-width spaces already break it
    assert with_breaks(thai_like) == thai_like
    long = "b" * (LONG_RUN_CHARS * 3)
    assert without_breaks(with_breaks(long)) == long


def _blocks(view: ChatView):
    block = view.document().begin()
    while block.isValid():
        yield block
        block = block.next()


class _PaintedText(QObject):
    """What the view's text was at each of its paints."""

    def __init__(self, view: ChatView) -> None:
        super().__init__(view)
        self.view, self.seen = view, []
        view.viewport().installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.seen.append(self.view.document().toPlainText())
        return False


def test_a_large_conversation_says_it_is_loading_instead_of_showing_the_previous_one(qtbot):
    view = _view(qtbot, "A short earlier conversation.")
    painted = _PaintedText(view)
    view.viewport().update()
    qtbot.waitUntil(lambda: bool(painted.seen))  # the earlier conversation is on screen
    view.set_messages([ChatMessage("user", "Show me"), ChatMessage("assistant", "y" * (LOADING_NOTE_CHARS + 1))])
    assert LOADING_NOTE in painted.seen  # painted before the layout of the large page began
    assert LOADING_NOTE not in view.document().toPlainText()
    view.set_messages([ChatMessage("user", "Short"), ChatMessage("assistant", "Small.")])
    assert painted.seen.count(LOADING_NOTE) == 1  # a small conversation opens without it


def test_a_huge_answer_lays_out_its_first_part_and_keeps_all_of_it(qtbot):
    """User pass 4: a 2,000,000-character answer (the answer limit) took seconds to open and again at every
    change of the chat's width (opening the inspector), the window not answering meanwhile."""
    paragraph = "The quick brown fox jumps over the lazy dog. " * 20 + "\n\n"
    answer = paragraph * (2_000_000 // len(paragraph))
    view = _view(qtbot, answer)
    shown = view.document().toPlainText()
    assert len(shown) < MESSAGE_LAYOUT_MAX_CHARS + 1_000
    hidden = len(answer) - MESSAGE_LAYOUT_MAX_CHARS
    assert "more characters not shown here; the message's Copy copies them" in shown
    note = shown[shown.index("… "):].split(" more characters")[0]
    assert abs(int(note[2:].replace(",", "")) - hidden) < len(paragraph)  # cut at a paragraph's end
    assert view.messages()[-1].text == answer


def test_a_huge_question_is_cut_the_same_way(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    view.set_messages([ChatMessage("user", "q " * 300_000), ChatMessage("assistant", "Short.")])
    shown = view.document().toPlainText()
    assert "more characters not shown here" in shown and shown.endswith("Short.")


def test_a_wide_table_shows_fewer_rows():
    assert table_rows_shown(2) == TABLE_MAX_ROWS
    assert table_rows_shown(20) == TABLE_MAX_CELLS // 20
    assert table_rows_shown(10_000) == TABLE_MIN_ROWS  # a row or ten of any table still shows
