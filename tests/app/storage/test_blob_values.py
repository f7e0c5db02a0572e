"""A BLOB where Parley stores text (a title, a message, a run event written as x'ff00' by another program)
affects only itself: shown marked as damaged, counted once, every other conversation and message readable."""

from __future__ import annotations

import json

import pytest

from app.storage import History
from app.storage.damaged_values import DAMAGED_MARK, damaged_count, forget
from app.storage.exchange import export_json
from app.storage.integrity import DamagedDatabaseError
from app.storage.run_view import run_view_events
from app.storage.search import HistorySearch
from tests.app.storage.test_history import record_answer


def put_blob(history: History, table: str, column: str, raw: bytes, where: str, *values: object) -> None:
    """Store ``raw`` as a BLOB in ``table.column``, as another program or a damaged file can leave it."""
    cursor = history.db.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", [raw, *values])
    assert cursor.rowcount == 1
    (stored,) = history.db.execute(f"SELECT typeof({column}) FROM {table} WHERE {where}", list(values)).fetchone()
    assert stored == "blob"


def blob_history(history: History) -> dict[str, int]:
    """Three conversations: one intact, one with a BLOB title, one with a BLOB message and a BLOB run event."""
    intact = history.create_conversation("Garden plans")
    record_answer(history, intact, "when do tomatoes grow", "In summer.")
    titled = history.create_conversation("placeholder")
    record_answer(history, titled, "tomatoes or peppers", "Both grow well.")
    put_blob(history, "conversations", "title", b"\xff\x00Trip", "id = ?", titled)
    texted = history.create_conversation("Recipes")
    recorder = record_answer(history, texted, "soup please", "Tomatoes soup.")
    (user,) = [m.id for m in history.branch(texted) if m.content == "soup please"]
    put_blob(history, "messages", "content", b"\xff\x00", "id = ?", user)
    first_event = "run_id = ? AND seq = (SELECT MIN(seq) FROM run_events WHERE run_id = ?)"
    put_blob(history, "run_events", "event", b"\xff\x00", first_event, recorder.ids.run_id, recorder.ids.run_id)
    return {"intact": intact, "titled": titled, "texted": texted}


@pytest.fixture(autouse=True)
def _fresh_count():
    forget()
    yield
    forget()


def test_a_blob_title_is_shown_marked_and_the_rest_listed(history):
    ids = blob_history(history)
    titles = {s.id: s.title for s in history.list_conversations()}
    assert titles[ids["intact"]] == "Garden plans" and titles[ids["texted"]] == "Recipes"
    assert titles[ids["titled"]] == DAMAGED_MARK + "\ufffd\ufffdTrip"
    assert {c.id: c.title for c in history.conversation_list()} == titles
    assert [c.title for c in history.listed_conversations([ids["titled"]])] == [titles[ids["titled"]]]
    hits = HistorySearch(history).search("tomatoes")
    assert {h.conversation_id for h in hits} == set(ids.values())
    assert json.loads(export_json(history, ids["titled"]))["conversation"]["title"] == titles[ids["titled"]]
    assert damaged_count(history.path) == 1


def test_a_blob_message_and_run_event_affect_only_themselves(history):
    ids = blob_history(history)
    contents = [m.content for m in history.branch(ids["texted"])]
    assert contents == [DAMAGED_MARK + "\ufffd\ufffd", "Tomatoes soup."]
    events = run_view_events(history, history.runs(ids["texted"])[-1].id)
    assert events[0]["type"] == "damaged" and "Tomatoes soup." in [e.get("content") for e in events]
    assert history.run_events(history.runs(ids["texted"])[-1].id)[0]["type"] == "damaged"
    assert damaged_count(history.path) == 2  # the message and the event, each counted once though read twice


def test_a_blob_tool_call_and_output_are_shown_marked(history):
    cid = history.create_conversation("Sums")
    record_answer(history, cid, "add", "It is 2.", with_tool=True)
    (answer,) = [m.id for m in history.branch(cid) if m.tool_calls]
    put_blob(history, "tool_calls", "arguments", b"{\xff}", "message_id = ?", answer)
    put_blob(history, "tool_outputs", "content", b"2\x00", "tool_call_id = (SELECT id FROM tool_calls "
                                                         "WHERE message_id = ?)", answer)
    (call,) = next(m for m in history.branch(cid) if m.tool_calls).tool_calls
    assert call.arguments == DAMAGED_MARK + "{\ufffd}"
    assert call.output is not None and call.output.content == DAMAGED_MARK + "2\ufffd"
    assert history.branch(cid)[-1].content == "It is 2."


def test_a_wrong_type_parley_could_write_still_fails_loudly(history):
    cid = history.create_conversation("Numbers")
    history.db.execute("UPDATE conversations SET updated_at = 'soon' WHERE id = ?", [cid])
    with pytest.raises(DamagedDatabaseError, match="'soon' in updated_at"):
        history.list_conversations()
