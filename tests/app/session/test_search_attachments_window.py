"""Attachment search in the real window over a real database: an attachment hit says it comes from the file,
choosing it opens the conversation at that message (an older page loaded, another branch switched to), and a
history from before migration 6 is indexed in the background (on the indexer's thread), after which a search
shown is run again."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.attachments import attachment_from_bytes
from app.paths import resolve_paths
from app.session import search_wiring
from app.storage import History
from app.storage.run_recorder import RunRecorder
from tests.app.session.test_chat_session_search import answered
from tests.app.storage.test_attachment_search import build_version_5
from tests.support.session_window import exposed_session_window
from widgets.chat_view import MESSAGE_TOP_GAP_PX
from widgets.conversation_delegate import PIECES_ROLE
from widgets.search_snippet import MARK_END, MARK_START

CONTRACT = b"Services agreement.\nThe supplier shall indemnify the purchaser against every claim.\n"


def question_with_file(history: History, conversation_id: int, prompt: str, name: str, data: bytes) -> int:
    recorder = RunRecorder(history, conversation_id)
    ids = recorder.begin(prompt, attachments=[attachment_from_bytes(name, data)])
    return ids.user_message_id


def choose_row(qtbot, window, row: int = 0) -> None:
    view = window.conversations.list
    where = view.visualRect(view.model().index(row, 0)).center()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=where)


@pytest.fixture
def window_with(qtbot, parley_home, monkeypatch):
    monkeypatch.setattr(search_wiring, "INDEX_START_DELAY_MS", 0)

    def build():
        window, session = exposed_session_window(qtbot, 900, 700)
        return window, session
    return build


def test_an_attachment_hit_opens_its_conversation_at_that_message_on_an_older_page(qtbot, window_with):
    history = History.open(resolve_paths().database)
    cid = history.create_conversation("Long chat")
    message_id = question_with_file(history, cid, "Please read the contract", "contract.txt", CONTRACT)
    for i in range(80):  # 160 more messages: the question is far beyond the first page shown
        answered_id = history.add_message(cid, "assistant" if i % 2 else "user", f"filler line {i}")
    assert answered_id > message_id
    history.close()
    window, session = window_with()
    session.search("indemnify")
    row = window.conversations.model.index(0, 0)
    text = "".join(piece for piece, _marked in row.data(PIECES_ROLE))
    assert text.startswith("Attached contract.txt: ") and "indemnify" in text
    assert [piece for piece, marked in row.data(PIECES_ROLE) if marked] == ["indemnify"]
    chat = window.chat_view
    choose_row(qtbot, window)
    assert session.conversation_id == cid
    index = next(i for i, m in enumerate(chat.messages()) if m.ref == message_id)
    label = chat.label_rect(index)
    assert label is not None and 0 <= label.top() <= 2 * MESSAGE_TOP_GAP_PX  # its label whole, at the top
    assert chat.verticalScrollBar().value() < chat.verticalScrollBar().maximum()
    session.search_wiring.stop()
    session.history.close()


def test_a_hit_on_another_branch_switches_to_it(qtbot, window_with):
    history = History.open(resolve_paths().database)
    cid = history.create_conversation("Branches")
    first = question_with_file(history, cid, "Read this", "notes.md", b"The secret word is marmalade.")
    history.branch_from(cid, first)
    history.add_message(cid, "user", "A different question instead")
    assert first not in {m.id for m in history.branch(cid)}
    history.close()
    window, session = window_with()
    session.search("marmalade")
    choose_row(qtbot, window)
    assert session.conversation_id == cid
    assert first in {m.ref for m in window.chat_view.messages()}
    assert session.history.conversation(cid).current_leaf_id == first
    session.search_wiring.stop()
    session.history.close()


def test_a_title_hit_still_opens_the_conversation_as_before(qtbot, window_with):
    history = History.open(resolve_paths().database)
    cid = answered(history, "Quokka facts", "hello", "hi")
    history.close()
    window, session = window_with()
    session.search("quokka")
    choose_row(qtbot, window)
    assert session.conversation_id == cid
    bar = window.chat_view.verticalScrollBar()
    assert bar.value() == bar.maximum()
    session.search_wiring.stop()
    session.history.close()


def test_an_older_history_is_indexed_in_the_background_and_the_search_shown_runs_again(qtbot, window_with):
    path = Path(resolve_paths().database)
    path.parent.mkdir(parents=True, exist_ok=True)
    build_version_5(path, 40)
    window, session = window_with()
    box = window.conversations.search_box
    box.blockSignals(True)  # the box shows the words; only this test's search and the indexer's re-run search
    box.setText("quokkas")
    box.blockSignals(False)
    session.search("quokkas")  # at once, before the first batch: nothing indexed yet
    assert window.conversations.ids_in_order() == []
    qtbot.waitUntil(lambda: not session.search_wiring.indexing, timeout=10_000)
    assert session.search_wiring.indexed == 40
    assert sorted(window.conversations.ids_in_order()) == [i for i in range(1, 41) if i % 3]
    assert MARK_START not in window.conversations.model.index(0, 0).data()
    assert MARK_END not in window.conversations.model.index(0, 0).data()
    session.search_wiring.stop()
    session.history.close()
