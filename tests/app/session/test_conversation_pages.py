"""The window's conversation list from a real history (app/session/conversation_pages.py, issue 17): the window
opens knowing every conversation's id, in order, having read only the rows it shows; scrolling the real list
reads the rows scrolled to; a refresh keeps the open conversation selected; search still finds and names what
was never shown."""

from __future__ import annotations

from app.paths import resolve_paths
from app.storage import History
from tests.support.session_window import exposed_session_window
from widgets.conversation_model import BLOCK_ROWS

TOTAL = BLOCK_ROWS * 4 + 57


def _history_of(total: int) -> list[int]:
    history = History.open(resolve_paths().database)
    history.db.execute("PRAGMA synchronous = OFF")
    ids = [history.create_conversation(f"Conversation {i} about topic {i % 7}") for i in range(total)]
    for i, cid in enumerate(ids):  # ties in time (three per millisecond) are ordered by id, as in the database
        history.db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", [1_700_000_000_000 + i // 3, cid])
    for cid in ids[100:400:50]:
        history.set_pinned(cid, True)
    history.close()
    return ids


def _open_window(qtbot):
    window, session = exposed_session_window(qtbot, 1000, 700)
    return window, session


def test_the_window_opens_with_every_id_in_order_and_reads_rows_as_they_are_shown(qtbot, parley_home):
    _history_of(TOTAL)
    window, session = _open_window(qtbot)
    whole = session.history.conversation_list()
    listed, model = window.conversations, window.conversations.model
    assert listed.ids_in_order() == [c.id for c in whole]
    assert model.rowCount() == TOTAL
    qtbot.waitUntil(lambda: model.listed(whole[0].id) is not None)  # painted, so read
    assert model.listed(whole[-1].id) is None  # not shown: not read
    bar = listed.list.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)
    bar.setValue(bar.maximum())
    qtbot.waitUntil(lambda: model.listed(whole[-1].id) is not None)
    assert model.listed(whole[TOTAL // 2].id) is None  # the rows scrolled past are not read
    shown = [model.index(row, 0).data() for row in range(TOTAL)]  # every row, read now, as the whole list has it
    assert [text.split("\n")[0].removeprefix("Pinned: ") for text in shown] == [c.title for c in whole]
    session.history.close()


def test_a_refresh_keeps_the_open_conversation_selected_far_down_the_list(qtbot, parley_home):
    ids = _history_of(TOTAL)
    window, session = _open_window(qtbot)
    whole = [c.id for c in session.history.conversation_list()]
    deep = whole[TOTAL - 20]
    session.open_conversation(deep)
    session.rename(deep, "Renamed far down the list")  # refreshes the list
    listed = window.conversations
    current = listed.list.currentIndex()
    assert listed.model.conversation_id(current.row()) == deep
    qtbot.waitUntil(lambda: current.data() is not None and current.data().startswith("Renamed far down"))
    session.pin(ids[0], True)
    assert listed.ids_in_order() == [c.id for c in session.history.conversation_list()]
    session.history.close()


def test_search_finds_a_conversation_never_shown_and_the_menu_knows_its_title(qtbot, parley_home):
    ids = _history_of(TOTAL)
    window, session = _open_window(qtbot)
    oldest = ids[0]  # the last row
    session.history.rename(oldest, "Zanzibar ferries")
    session.search("Zanzibar")
    assert window.conversations.ids_in_order() == [oldest]
    asked: list[str] = []
    window.conversations._ask_title = lambda _parent, current: asked.append(current)  # the rename prompt
    window.conversations.request_rename(oldest)
    assert asked == ["Zanzibar ferries"]
    session.history.close()
