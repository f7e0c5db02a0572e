"""Tool calls the loop never ran read "not run" with the reason in the inspector, live and from the database
(found in the user pass: a tool call from the final answer call stayed "queued" forever although the banner
said those calls were not run)."""

from __future__ import annotations

import asyncio

from app.session.run_controller import RunController
from app.storage import History
from app.storage.run_recorder import RunRecorder
from orchestration.limits import LoopLimits
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.run_trace import ENDED_FIRST, NOT_RUN, RunTrace
from orchestration.scripted import ScriptedModel, Step
from tools import default_registry
from widgets.inspector import Inspector

IGNORED = "The model asked for tools in its final answer call; those calls were not run."  # orchestration/loop.py


def test_the_final_answer_calls_tools_read_not_run_with_the_reason(qtbot, qasync_loop, tmp_path):
    history = History.open(tmp_path / "history.db")
    conversation = history.create_conversation("otters")
    recorder = RunRecorder(history, conversation)
    ids = recorder.begin("what is 6*7?", provider="scripted", model="m")
    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.show()
    controller = RunController()
    controller.event_emitted.connect(inspector.handle_event)
    model = ScriptedModel([Step(calls=[("calculate", {"expression": "6*7"})]),
                           Step(text="It is 42.", calls=[("calculate", {"expression": "42+0"})])])
    request = RunRequest(model="m", messages=[UserMessage(content="what is 6*7?")], tool_names=["calculate"],
                         run_id=ids.run_id)
    qasync_loop.run_until_complete(controller.start(model, default_registry(), request, sinks=[recorder],
                                                    limits=LoopLimits(max_iterations=1)))
    inspector.flush()
    tools = [r for r in inspector.timeline_rows() if r[0] == "1" and r[1] == "calculate"]
    assert [r[2] for r in tools] == ["ok", NOT_RUN]
    assert IGNORED in tools[1][4]

    stored = RunTrace.from_stored(history.run_events(ids.run_id))
    final_tool = stored.calls[-1].tools[0]
    assert final_tool.status == NOT_RUN and final_tool.result == IGNORED
    history.close()


def test_a_call_the_run_ended_before_reads_not_run():
    model_events: list = []
    loop = RunLoop(ScriptedModel([Step(calls=[("calculate", {"expression": "1+1"})]), Step(text="2")]),
                   default_registry(), model_events.append)
    asyncio.run(loop.run(RunRequest(model="m", messages=[UserMessage(content="hi")], tool_names=["calculate"])))
    # Stop while the call waited (for approval): the run's events end before it ran
    cut = [e for e in model_events if e.type not in ("tool_executing", "tool_result", "done") and e.iteration < 2]
    done = model_events[-1].model_copy(update={"finish_reason": "cancelled"})
    trace = RunTrace.from_events([*cut, done])
    tool = trace.calls[0].tools[0]
    assert [c.status for c in tool.changes] == ["queued", NOT_RUN] and tool.result == ENDED_FIRST
