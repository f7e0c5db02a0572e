"""The real window lists and opens a conversation whose stored text is not UTF-8 (a damaged or hand-edited
history): U+FFFD for each bad byte, the rest of the conversation shown, no error in its place."""

from __future__ import annotations

from app.paths import resolve_paths
from app.storage import History
from tests.app.storage.test_damaged_text import damaged_conversation
from tests.support.session_window import exposed_session_window


def test_a_damaged_conversation_is_listed_and_opens_with_the_rest_shown(qtbot, parley_home):
    with History.open(resolve_paths().database) as history:
        cid = damaged_conversation(history)
    window, session = exposed_session_window(qtbot, 900, 700)
    assert window.conversations.ids_in_order() == [cid]
    assert window.conversations.model.index(0, 0).data().startswith("Notes \ufffd")
    session.open_conversation(cid)
    window.chat_view.flush()
    shown = window.chat_view.toPlainText()
    assert session.conversation_id == cid
    assert "caf\ufffd and \ufffd\ufffd end" in shown
    for rest in ("first answer", "How many eggs?", "Twelve eggs."):
        assert rest in shown, shown
    assert "Could not decode" not in shown
    session.history.close()
    window.close()
