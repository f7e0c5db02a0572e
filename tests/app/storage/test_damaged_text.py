"""Stored text that is not UTF-8 (a damaged or hand-edited database) is read by every reader of the history with
U+FFFD for each bad byte and the rest as stored: the conversation, its title in the list, its exports and its run
trace all open, and nothing else of the conversation is lost."""

from __future__ import annotations

import json

from app.storage import History
from app.storage.exchange import export_json
from app.storage.markdown import export_markdown
from tests.app.storage.test_history import record_answer


def damage(history: History, table: str, column: str, raw: bytes, where: str, *values: object) -> None:
    """Store ``raw`` in ``table.column`` typed TEXT, as a hand edit or another program can leave it."""
    cursor = history.db.execute(f"UPDATE {table} SET {column} = CAST(? AS TEXT) WHERE {where}", [raw, *values])
    assert cursor.rowcount == 1
    (stored_type,) = history.db.execute(f"SELECT typeof({column}) FROM {table} WHERE {where}", list(values)).fetchone()
    assert stored_type == "text"


def damaged_conversation(history: History) -> int:
    cid = history.create_conversation("placeholder", system_prompt="Be brief.")
    record_answer(history, cid, "first question", "first answer")
    record_answer(history, cid, "How many eggs?", "Twelve eggs.", with_tool=True)
    (user,) = [m.id for m in history.branch(cid) if m.content == "first question"]
    (answer,) = [m.id for m in history.branch(cid) if m.tool_calls]
    damage(history, "messages", "content", b"caf\xe9 and \xff\xfe end", "id = ?", user)
    damage(history, "conversations", "title", b"Notes \xff", "id = ?", cid)
    damage(history, "conversations", "system_prompt", b"Be \xc3brief", "id = ?", cid)
    damage(history, "tool_calls", "arguments", b'{"x": "\xff"}', "message_id = ?", answer)
    damage(history, "tool_outputs", "content", b"2 \xfe", "tool_call_id = (SELECT id FROM tool_calls "
                                                          "WHERE message_id = ?)", answer)
    return cid


def test_a_conversation_with_damaged_text_opens_with_replacement_characters(history):
    cid = damaged_conversation(history)
    messages = history.branch(cid)
    assert [m.content for m in messages] == ["caf\ufffd and \ufffd\ufffd end", "first answer", "How many eggs?", "",
                                             "Twelve eggs."]
    (call,) = messages[3].tool_calls
    assert call.arguments == '{"x": "\ufffd"}' and call.output is not None and call.output.content == "2 \ufffd"
    conversation = history.conversation(cid)
    assert (conversation.title, conversation.system_prompt) == ("Notes \ufffd", "Be \ufffdbrief")
    assert [c.title for c in history.conversation_list() if c.id == cid] == ["Notes \ufffd"]
    assert history.all_messages(cid)[0].content == "caf\ufffd and \ufffd\ufffd end"


def test_exports_of_a_damaged_conversation_keep_the_rest(history):
    cid = damaged_conversation(history)
    document = json.loads(export_json(history, cid))
    assert document["conversation"]["title"] == "Notes \ufffd"
    assert [m["content"] for m in document["messages"]][:2] == ["caf\ufffd and \ufffd\ufffd end", "first answer"]
    markdown = export_markdown(history, cid)
    assert "caf\ufffd and \ufffd\ufffd end" in markdown and "Twelve eggs." in markdown


def test_a_run_trace_with_a_damaged_event_is_read(history):
    cid = history.create_conversation("Trace")
    recorder = record_answer(history, cid, "question", "an answer")
    assert recorder.ids is not None
    run_id = recorder.ids.run_id
    seq, event = history.db.execute("SELECT seq, event FROM run_events WHERE run_id = ? AND type = 'content'",
                                    [run_id]).fetchone()
    raw = event.encode().replace(b"an answer", b"an \xffanswer")
    damage(history, "run_events", "event", raw, "run_id = ? AND seq = ?", run_id, seq)
    events = history.run_events(run_id)
    assert [e["content"] for e in events if e["type"] == "content"] == ["an \ufffdanswer"]
    assert [r.id for r in history.runs(cid)] == [run_id]
