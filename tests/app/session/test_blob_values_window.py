"""The real window over a history holding BLOBs where text belongs (a title, a message, a run event): every
conversation is listed, the damaged title and message are shown marked, the rest of the conversation shows,
and the status bar says how many damaged values were shown."""

from __future__ import annotations

from app.paths import resolve_paths
from app.storage import History
from app.storage.damaged_values import DAMAGED_MARK
from tests.app.storage.test_blob_values import blob_history
from tests.support.session_window import exposed_session_window


def test_blob_values_affect_only_themselves_in_the_window(qtbot, parley_home):
    with History.open(resolve_paths().database) as history:
        ids = blob_history(history)
    window, session = exposed_session_window(qtbot, 900, 700)
    assert sorted(window.conversations.ids_in_order()) == sorted(ids.values())
    titles = [window.conversations.model.index(row, 0).data() for row in range(3)]
    assert any(t.startswith(DAMAGED_MARK + "\ufffd\ufffdTrip") for t in titles), titles
    assert any(t.startswith("Garden plans") for t in titles) and any(t.startswith("Recipes") for t in titles)
    qtbot.waitUntil(lambda: "1 damaged value shown as" in window.statusBar().currentMessage())
    session.open_conversation(ids["texted"])
    window.chat_view.flush()
    shown = window.chat_view.toPlainText()
    assert session.conversation_id == ids["texted"]
    assert DAMAGED_MARK + "\ufffd\ufffd" in shown and "Tomatoes soup." in shown, shown
    assert "is damaged" not in shown
    assert "1 saved event that could not be read (damaged in the history file)" in shown, shown
    qtbot.waitUntil(lambda: "3 damaged values shown as" in window.statusBar().currentMessage())
    window.grab().save(str(parley_home / "blob-window.png"))
    session.history.close()
    window.close()
