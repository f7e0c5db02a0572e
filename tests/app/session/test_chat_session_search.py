"""Conversation search from the real window over a real database: one row per conversation, showing its best
message match as plain text with the matched word marked."""

from __future__ import annotations

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.storage import History
from app.storage.run_recorder import RunRecorder
from orchestration.events import ContentDelta, Done, EventFactory, RunStarted
from tests.support.memory_keyring import MemoryKeyring
from widgets.conversation_delegate import PIECES_ROLE


def answered(history: History, title: str, question: str, answer: str) -> int:
    cid = history.create_conversation(title)
    recorder = RunRecorder(history, cid)
    events = EventFactory(recorder.begin(question).run_id)
    recorder(events.make(RunStarted, provider="local", model="m"))
    events.iteration = 1
    recorder(events.make(ContentDelta, content=answer))
    recorder(events.make(Done, finish_reason="stop"))
    return cid


def test_one_row_per_conversation_with_its_best_message_match(qtbot, parley_home):
    history = History.open(resolve_paths().database)
    otters = answered(history, "Sea otters", "Do sea otters use tools?", "Yes: **otters** crack shells on stones.")
    lisbon = answered(history, "Lisbon", "Trams in Lisbon?", "Take tram 28.")
    history.close()
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    session.search("otters")
    model = window.conversations.model
    rows = [model.index(i, 0) for i in range(model.rowCount())]
    assert window.conversations.ids_in_order() == [otters]  # title and both messages match: one row
    assert "**" not in rows[0].data()
    assert any(marked for _text, marked in rows[0].data(PIECES_ROLE))
    session.search("tram")
    assert window.conversations.ids_in_order() == [lisbon]
    session.history.close()


def test_a_message_stored_with_bytes_that_are_not_utf8_is_found_not_a_search_problem(qtbot, parley_home):
    history = History.open(resolve_paths().database)
    otters = answered(history, "Sea otters", "Do sea otters use tools?", "placeholder")
    answer = history.branch(otters)[-1].id
    history.db.execute("UPDATE messages SET content = CAST(? AS TEXT) WHERE id = ?",
                       [b"Yes: otters crack \xff shells", answer])
    history.close()
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    session.search("otters")
    model = window.conversations.model
    assert window.conversations.ids_in_order() == [otters]
    text = "".join(piece for piece, _marked in model.index(0, 0).data(PIECES_ROLE))
    assert "\ufffd" in text and "Search problem" not in model.index(0, 0).data()
    session.history.close()
