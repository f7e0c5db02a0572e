"""Reading a stored run to show it again: streamed pieces joined in SQL, everything else as stored, the same
view state as folding every stored event, and a damaged row named."""

from __future__ import annotations

import pytest

from app.storage import History
from app.storage.integrity import DamagedDatabaseError
from app.storage.run_recorder import RunRecorder
from app.storage.run_view import run_view_events
from tests.support.run_script import RunScript
from widgets.conversation_state import ConversationState


def recorded(history: History) -> str:
    conversation = history.create_conversation("otters")
    recorder = RunRecorder(history, conversation)
    ids = recorder.begin("tell me", provider="p", model="m")
    script = RunScript(ids.run_id)
    events = [script.started(), script.reasoning("Let me "), script.reasoning("think."),
              *script.search("otters", [{"title": "A", "url": "https://a.example/", "snippet": "s"}])]
    script.next_call()
    events += [script.reasoning("Again."), script.content("Otters "), script.content("float."),
               script.warning("TOOL_CLAMP", "clamped"), script.content(" The end."), script.done()]
    for event in events:
        recorder(event)
    return ids.run_id


def test_pieces_are_joined_per_model_call_and_the_view_state_is_the_same(db_path):
    history = History.open(db_path)
    run_id = recorded(history)
    read = run_view_events(history, run_id)
    texts = [(e["type"], e["iteration"], e["content"]) for e in read if e["type"] in ("content", "reasoning")]
    assert texts == [("reasoning", 1, "Let me think."), ("reasoning", 2, "Again."), ("content", 2, "Otters float."),
                     ("content", 2, " The end.")]  # the warning between them keeps the two stretches apart
    every = history.run_events(run_id)
    assert [e["type"] for e in read if e["type"] not in ("content", "reasoning")] == \
        [e["type"] for e in every if e["type"] not in ("content", "reasoning")]
    joined, one_by_one = ConversationState.from_stored(1, read), ConversationState.from_stored(1, every)
    assert joined.tokens_text() == one_by_one.tokens_text()
    assert joined.trace.export() == one_by_one.trace.export()
    history.close()


def test_a_damaged_row_is_named(db_path):
    history = History.open(db_path)
    run_id = recorded(history)
    history.db.execute("UPDATE run_events SET event = '{not json' WHERE run_id = ? AND type = 'content'", [run_id])
    with pytest.raises(DamagedDatabaseError, match="not JSON"):
        run_view_events(history, run_id)
    history.close()
