"""A run stopped with Stop shows what is known about its tokens in the inspector, never "unknown in · unknown out".

The runs are real: the loop with a scripted model, cancelled mid-answer like the Stop button does; the stored
side goes through the run recorder into a real SQLite file and back.
"""

from __future__ import annotations

import asyncio

from app.storage import History
from app.storage.run_recorder import RunRecorder
from orchestration.engine import TokenUsage
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.run_trace import RunSummary, RunTrace
from orchestration.scripted import ScriptedModel, Step
from tools import default_registry
from widgets.inspector import Inspector


def stopped_run(steps: list[Step], history: History) -> tuple[list, int]:
    """Run the loop until the last step hangs mid-answer, then cancel it (Stop); the events and the conversation."""
    cid = history.create_conversation("stopped")
    recorder = RunRecorder(history, cid)
    ids = recorder.begin("Work it out", provider="scripted", model="m")
    events: list = []
    hanging = asyncio.Event()

    def emit(event) -> None:
        recorder(event)
        events.append(event)
        if event.type == "content" and event.iteration == len(steps):
            hanging.set()

    async def go() -> None:
        loop = RunLoop(ScriptedModel(steps), default_registry(), emit)
        task = asyncio.ensure_future(loop.run(RunRequest(model="m", messages=[UserMessage(content="x")],
                                                         tool_names=["calculate"], run_id=ids.run_id)))
        await asyncio.wait_for(hanging.wait(), 5)
        task.cancel()
        assert (await task).finish_reason == "cancelled"

    asyncio.run(go())
    return events, cid


def stored_label(history: History, cid: int) -> str:
    record = history.runs(cid)[0]  # as the window's run list reads it (ChatSession.refresh_runs)
    return RunSummary(run_id=record.id, started_ms=record.started_at, ended_ms=record.ended_at,
                      iterations=record.iterations, finish_reason=record.finish_reason,
                      input_tokens=record.input_tokens, output_tokens=record.output_tokens).label()


def test_a_run_stopped_before_any_usage_says_so(qtbot, tmp_path):
    with History.open(tmp_path / "history.db") as history:
        events, cid = stopped_run([Step(text=["partial ", "answer"], hang_after_output=True)], history)
        stored = stored_label(history, cid)
    inspector = Inspector()
    qtbot.addWidget(inspector)
    for event in events:
        inspector.handle_event(event)
    inspector.flush()
    live = inspector.runs.item(0).text()
    for label in (live, stored):
        assert "cancelled before usage was reported" in label and "unknown" not in label, label
    call_row = inspector.timeline.topLevelItem(0)
    assert call_row.text(1) == "cancelled"
    assert "cancelled before usage was reported" in call_row.text(2) and "unknown" not in call_row.text(2)


def test_a_run_stopped_after_a_finished_call_shows_the_tokens_counted_so_far(qtbot, tmp_path):
    steps = [Step(calls=[("calculate", {"expression": "6*7"})], usage=TokenUsage(input_tokens=1200, output_tokens=30)),
             Step(text=["It is "], hang_after_output=True)]
    with History.open(tmp_path / "history.db") as history:
        events, cid = stopped_run(steps, history)
        stored = stored_label(history, cid)
    live = RunTrace.from_events(events).summary().label()
    for label in (live, stored):
        assert "1,200 in · 30 out (counted before the stop)" in label and "unknown" not in label, label
    inspector = Inspector()
    qtbot.addWidget(inspector)
    for event in events:
        inspector.handle_event(event)
    inspector.flush()
    first, second = (inspector.timeline.topLevelItem(i).text(2) for i in range(2))
    assert "1,200/30 tokens" in first
    assert "cancelled before usage was reported" in second
