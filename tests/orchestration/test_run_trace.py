"""The run trace is folded from run events: the same result live (event objects) and from stored JSON."""

from __future__ import annotations

import asyncio
import json

from orchestration.limits import LoopLimits
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.run_trace import TRACE_FORMAT, RunTrace
from orchestration.scripted import ScriptedModel, Step
from tools import default_registry

SECRET = "sk-test-key-not-real-0123456789"


def scripted_events(steps: list[Step], limits: LoopLimits | None = None) -> list:
    events: list = []
    model = ScriptedModel(steps)
    loop = RunLoop(model, default_registry(), events.append, limits=limits)
    asyncio.run(loop.run(RunRequest(model="m", messages=[UserMessage(content="hi")],
                                    tool_names=["calculate", "get_current_time"])))
    model.assert_exhausted()
    return events


def two_call_run() -> list:
    return scripted_events([
        Step(text="Computing.", calls=[("calculate", {"expression": "6*7"}), ("calculate", {"expression": "1/"}),
                                       ("calculate", {"expression": "2+2"})]),
        Step(text=["It is ", "42."], reasoning="easy"),
    ], LoopLimits(max_calls_per_turn=2))


def test_model_calls_with_their_tools_nested_and_warnings_in_place():
    trace = RunTrace.from_events(two_call_run())
    assert [c.iteration for c in trace.calls] == [1, 2]
    first, second = trace.calls
    assert first.request["tools"] == ["calculate", "get_current_time"] and first.request["message_count"] == 1
    assert [t.name for t in first.tools] == ["calculate"] * 3
    ok, bad, clamped = first.tools
    assert [c.status for c in ok.changes] == ["queued", "executing", "ok"] and ok.result == "6*7 = 42"
    assert bad.status == "error"
    assert [c.status for c in clamped.changes] == ["queued", "error"]  # refused before running
    assert [w.code for w in first.warnings] == ["TOOL_CLAMP"] and second.warnings == []
    response = second.response()
    assert response["text"] == "It is 42." and response["reasoning"] == "easy"
    assert response["finish_reason"] == "stop" and second.outcome == "finished"
    assert trace.finish_reason == "stop"
    assert trace.summary().iterations == 2


def test_stored_json_gives_the_same_trace():
    events = two_call_run()
    live = RunTrace.from_events(events)
    stored = RunTrace.from_stored([json.loads(e.model_dump_json()) for e in events])
    assert live.export() == stored.export()


def test_export_is_json_without_deltas_and_with_secrets_hidden():
    events = scripted_events([Step(calls=[("calculate", {"expression": "1+1"})]),
                              Step(text=f"the key was {SECRET}")])
    trace = RunTrace.from_events(events, secrets=[SECRET])
    exported = trace.export()
    assert SECRET not in exported and SECRET not in trace.response_json(trace.calls[1])
    document = json.loads(exported)
    assert document["format"] == TRACE_FORMAT and len(document["model_calls"]) == 2
    assert not any(e["type"] in ("content", "reasoning") for e in document["events"])
    assert document["model_calls"][0]["tools"][0]["arguments"] == {"expression": "1+1"}


def test_cancelled_run_marks_the_open_call():
    events = scripted_events([Step(text="partial")])
    cut = [e for e in events if e.type not in ("model_call_finished", "done")]
    done = events[-1].model_copy(update={"finish_reason": "cancelled"})
    trace = RunTrace.from_events([*cut, done])
    assert trace.calls[0].outcome == "cancelled" and trace.summary().finish_reason == "cancelled"


def test_unknown_event_types_are_skipped():
    events = [json.loads(e.model_dump_json()) for e in scripted_events([Step(text="x")])]
    events.insert(2, {"type": "from_the_future", "run_id": events[0]["run_id"], "seq": 99, "ts": 0, "iteration": 1})
    assert RunTrace.from_stored(events).calls[0].response()["text"] == "x"
