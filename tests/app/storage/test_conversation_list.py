"""The window's light conversation list (``History.conversation_list``, issue 17) lists what the full listing
lists, in its order, and still names a damaged row instead of showing it; read a page at a time
as ids in order (``conversation_order``) and rows by id (``listed_conversations``) it is the same list."""

from __future__ import annotations

import pytest

from app.storage import History
from app.storage.integrity import MAX_TIME_MS, DamagedDatabaseError


def _projection(history: History) -> list[tuple[int, str, int, bool]]:
    return [(s.id, s.title, s.updated_at, s.pinned) for s in history.list_conversations()]


def test_the_light_list_is_the_full_list_without_counts(history: History):
    ids = [history.create_conversation(f"conversation {i}") for i in range(6)]
    for cid in ids:
        history.add_message(cid, "user", f"question in {cid}")
    history.set_pinned(ids[1], True)
    history.set_pinned(ids[4], True)
    history.set_archived(ids[2], True)
    history.db.execute("UPDATE conversations SET updated_at = 5 WHERE id IN (?, ?)", [ids[3], ids[5]])  # a tie
    listed = history.conversation_list()
    assert [tuple(c) for c in listed] == _projection(history)
    assert [c.id for c in listed][:2] == [ids[4], ids[1]]  # pinned first, the newest of them first
    assert ids[2] not in [c.id for c in listed]  # archived


# A BLOB title is not here: it affects only itself, shown marked by every list (tests/app/storage/test_blob_values.py).
@pytest.mark.parametrize("damage", ["updated_at = 'yesterday'", f"updated_at = {MAX_TIME_MS + 1}", "pinned = 0.5"])
def test_a_damaged_row_is_named_as_the_full_list_names_it(history: History, damage: str):
    cid = history.create_conversation("fine")
    history.create_conversation("to be damaged")
    history.db.execute("PRAGMA ignore_check_constraints = ON")
    history.db.execute(f"UPDATE conversations SET {damage} WHERE id = ?", [cid + 1])
    with pytest.raises(DamagedDatabaseError) as full:
        history.list_conversations()
    with pytest.raises(DamagedDatabaseError) as light:
        history.conversation_list()
    assert str(light.value) == str(full.value)
    with pytest.raises(DamagedDatabaseError) as order:
        history.conversation_order()
    assert str(order.value) == str(full.value)
    with pytest.raises(DamagedDatabaseError) as rows:
        history.listed_conversations([cid + 1])
    assert str(rows.value) == str(full.value)


def _varied_history(history: History) -> list[int]:
    """Nine conversations: two pinned, one archived, and ties in updated_at both among pinned and unpinned."""
    ids = [history.create_conversation(f"conversation {i}") for i in range(9)]
    for i, cid in enumerate(ids):
        history.db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", [1_000 + (i // 3), cid])
    history.set_pinned(ids[0], True)
    history.set_pinned(ids[1], True)
    history.set_archived(ids[5], True)
    return ids


def test_the_order_and_the_rows_by_id_are_the_whole_list(history: History, monkeypatch: pytest.MonkeyPatch):
    ids = _varied_history(history)
    whole = history.conversation_list()
    assert len(whole) == 8
    order = history.conversation_order()
    assert order == [c.id for c in whole]
    monkeypatch.setattr("app.storage.history.LISTED_IDS", 3)  # several queries for one call
    by_id = {c.id: c for c in history.listed_conversations([*reversed(order), ids[5], 10_000])}
    assert [by_id[cid] for cid in order] == whole
    assert ids[5] not in by_id and 10_000 not in by_id  # archived, and gone: left out
