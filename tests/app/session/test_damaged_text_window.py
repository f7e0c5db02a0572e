"""The real window lists and opens a conversation whose stored text is not UTF-8 (a damaged or hand-edited
history): U+FFFD for each bad byte, the rest of the conversation shown, no error in its place."""

from __future__ import annotations

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.storage import History
from tests.app.storage.test_damaged_text import damaged_conversation
from tests.support.memory_keyring import MemoryKeyring


def test_a_damaged_conversation_is_listed_and_opens_with_the_rest_shown(qtbot, parley_home):
    with History.open(resolve_paths().database) as history:
        cid = damaged_conversation(history)
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    window.resize(900, 700)
    window.show()
    qtbot.waitExposed(window)
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
