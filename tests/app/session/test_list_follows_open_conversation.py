"""The conversation list highlights the conversation the chat shows, also when the chat changed without a click in
the list: an imported conversation opened, a conversation opened by the session (a search hit), New chat."""

from __future__ import annotations

from app.paths import resolve_paths
from app.storage import History
from tests.support.session_window import exposed_session_window


def _highlighted(window) -> int | None:
    listed = window.conversations
    index = listed.list.currentIndex()
    if not index.isValid() or not listed.list.selectionModel().isSelected(index):
        return None
    return listed.model.conversation_id(index.row())


def test_the_highlighted_row_follows_the_open_conversation(qtbot, parley_home):
    with History.open(resolve_paths().database) as history:
        otters, crows, bread = (history.create_conversation(title) for title in ("Otters", "Crows", "Bread"))
    window, session = exposed_session_window(qtbot, 1000, 700)
    listed = window.conversations
    row = listed.model.row_of(crows)
    assert row is not None
    listed.list.clicked.emit(listed.model.index(row, 0))  # the user opens Crows from the list
    listed.list.setCurrentIndex(listed.model.index(row, 0))
    assert session.conversation_id == crows and _highlighted(window) == crows

    session.open_conversation(otters)  # opened without the list: import, a search hit
    assert session.conversation_id == otters
    assert _highlighted(window) == otters

    session.new_chat()
    assert _highlighted(window) is None  # a new chat is no listed conversation

    session.open_conversation(bread)
    assert _highlighted(window) == bread
    session.history.close()
