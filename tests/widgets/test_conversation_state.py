"""The per-conversation view state (Qt-free): what the fold of a run's events keeps, the waiting text, token
counts, late events of an earlier run, a stored run read back (also one whose end was never written), and the
registry that keeps one state per conversation."""

from __future__ import annotations

import json

from orchestration.events import Usage, event_json
from tests.support.run_script import RunScript
from widgets.conversation_state import NEW_CHAT, ConversationState, ConversationStates, coalesced


def test_the_fold_keeps_the_latest_run_its_tokens_and_its_waiting_state():
    state = ConversationState(7)
    script = RunScript("run-a")
    state.fold(script.started())
    assert state.running and state.waiting_text() == "Waiting for the model…"
    state.fold(script.reasoning("hmm"))
    assert state.waiting_text() == "Reasoning…"
    state.fold(script.factory.make(Usage, input_tokens=1200, output_tokens=7))
    calls, call_id = script.tool_calls("read_file", {"path": "a"})
    state.fold(calls)
    assert state.waiting_text() == ""  # the answer began (with a tool call)
    state.pending_approval = [call_id]
    assert state.waiting_text() == "Waiting for your approval…"
    state.fold(script.executing(call_id, "read_file", "file"))
    assert state.pending_approval == [] and state.waiting_text() == ""
    script.next_call()
    state.fold(script.factory.make(Usage, input_tokens=1400, output_tokens=300))
    state.fold(script.content("Done."))
    state.fold(script.done())
    assert not state.running and state.waiting_text() == ""
    assert state.tokens_text() == "2,600 in · 307 out" and state.run_id == "run-a"
    assert state.trace is not None and len(state.trace.calls) == 2

    late = RunScript("run-old")
    state.fold(late.factory.make(Usage, input_tokens=5, output_tokens=5))  # an earlier run's straggler
    assert state.tokens_text() == "2,600 in · 307 out"
    second = RunScript("run-b")
    state.fold(second.started())
    assert state.tokens_text() == "" and [e.type for e in state.events] == ["run_started"]


def test_a_stored_run_folds_to_the_same_state_and_an_unfinished_one_is_not_running():
    script = RunScript("run-a")
    events = [script.started(), script.reasoning("think"), script.factory.make(Usage, input_tokens=3,
                                                                               output_tokens=4),
              script.content("Hi"), script.done()]
    live = ConversationState(1)
    for event in events:
        live.fold(event)
    stored = ConversationState.from_stored(1, [json.loads(event_json(e)) for e in events])
    assert stored.events == live.events and stored.tokens_text() == live.tokens_text() == "3 in · 4 out"
    cut = ConversationState.from_stored(1, [json.loads(event_json(e)) for e in events[:3]]
                                        + [{"type": "content", "run_id": "run-a"}])  # unreadable: skipped
    assert not cut.running and cut.waiting_text() == "" and len(cut.events) == 3


def test_the_registry_keeps_one_state_per_conversation_and_moves_a_saved_new_chat():
    states = ConversationStates()
    fresh = states.get(NEW_CHAT)
    fresh.expect_reasoning = True
    moved = states.move(NEW_CHAT, 12)
    assert moved is fresh and moved.conversation_id == 12 and NEW_CHAT not in states and 12 in states
    states.get(13).running = True
    assert states.running() == [13] and len(states) == 2
    states.drop(12)
    assert states.find(12) is None


def test_coalesced_joins_consecutive_pieces_of_one_kind_and_model_call_only():
    script = RunScript("run-a")
    events = [script.started(), script.reasoning("a"), script.reasoning("b"), script.content("c"),
              script.content("d")]
    script.next_call()
    events += [script.content("e"), script.done()]
    joined = list(coalesced(events))
    assert [(e.type, getattr(e, "content", None), e.seq) for e in joined] == [
        ("run_started", None, 1), ("reasoning", "ab", 2), ("content", "cd", 4), ("content", "e", 6),
        ("done", None, 7)]


def test_a_stored_event_with_a_type_that_is_not_a_name_is_named_and_the_rest_still_shows():
    script = RunScript("run-a")
    events = [script.started(), script.content("Hi"), script.done()]
    stored = [json.loads(event_json(e)) for e in events]
    stored.insert(2, {"type": ["citation"], "run_id": "run-a", "seq": 9, "ts": 0, "iteration": 1})
    state = ConversationState.from_stored(1, stored)
    assert [e.type for e in state.events] == ["run_started", "content", "done"]
    assert state.unread_note is not None and "1 saved event that could not be read (no type)" in state.unread_note
    assert state.trace is not None and state.trace.unread_note == state.unread_note
