"""The inspector drawer: a scripted run grows the timeline live (coalesced per frame), and the same run reads
back from a real database file afterwards."""

from __future__ import annotations

import json

from PySide6.QtGui import QGuiApplication

from app.session.run_controller import RunController
from app.storage import History
from app.storage.run_recorder import RunRecorder
from orchestration.loop import RunRequest
from orchestration.messages import UserMessage
from orchestration.run_trace import RunSummary, RunTrace
from orchestration.scripted import ScriptedModel, Step
from tools import default_registry
from widgets.inspector import Inspector


def test_live_growth_then_reload_from_the_database(qtbot, qasync_loop, tmp_path):
    history = History.open(tmp_path / "history.db")
    conversation = history.create_conversation("otters")
    recorder = RunRecorder(history, conversation)
    ids = recorder.begin("what is 6*7?", provider="scripted", model="m")
    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.show()
    controller = RunController()
    controller.event_emitted.connect(inspector.handle_event)
    sizes: list[int] = []
    controller.event_emitted.connect(lambda e: sizes.append(len(inspector.trace.calls)) if inspector.trace else None)
    model = ScriptedModel([Step(text=["Let me ", "compute."], calls=[("calculate", {"expression": "6*7"})]),
                           Step(text=["It ", "is ", "42."])])
    request = RunRequest(model="m", messages=[UserMessage(content="what is 6*7?")], tool_names=["calculate"],
                         run_id=ids.run_id)
    qasync_loop.run_until_complete(controller.start(model, default_registry(), request, sinks=[recorder]))
    assert sizes[0] == 0 and sizes[-1] == 2  # the trace grew while the run streamed
    inspector.flush()
    live_rows = inspector.timeline_rows()
    assert [r[1] for r in live_rows if r[0] == "0"] == ["Model call 1", "Model call 2"]
    tool_row = next(r for r in live_rows if r[0] == "1")
    assert tool_row[1:3] == ("calculate", "ok") and "queued" in tool_row[4] and "executing" in tool_row[4]
    assert inspector.runs.count() == 1 and "stop" in inspector.runs.item(0).text()

    # a new window after a restart: the run list from the runs table, the timeline from the stored events
    history.close()
    reopened = History.open(tmp_path / "history.db")
    again = Inspector()
    qtbot.addWidget(again)
    again.run_selected.connect(lambda run_id: again.show_trace(RunTrace.from_stored(reopened.run_events(run_id))))
    record = reopened.runs(conversation)[0]
    again.set_runs([RunSummary(record.id, record.started_at, record.ended_at, record.iterations,
                               record.finish_reason, record.input_tokens, record.output_tokens)])
    again.runs.setCurrentRow(0)
    assert again.timeline_rows() == live_rows
    reopened.close()


def test_selecting_rows_shows_json_copy_and_export(qtbot):
    from orchestration.events import (
        EventFactory,
        ModelCallFinished,
        ModelCallStarted,
        ModelExchange,
        RunStarted,
        ToolCallInfo,
        ToolCalls,
        ToolResult,
    )

    factory = EventFactory("run-x")
    events = [factory.make(RunStarted, provider="p", model="m")]
    factory.iteration = 1
    events += [factory.make(ModelCallStarted, model="m", message_count=1, tools=["calculate"]),
               factory.make(ToolCalls, calls=[ToolCallInfo(id="c1", name="calculate", arguments='{"expression":"1"}')]),
               factory.make(ModelCallFinished, finish_reason="tool_calls", duration_ms=5),
               factory.make(ModelExchange, method="POST", path="chat/completions",
                            request_body='{"model":"m","messages":[{"role":"user","content":"one"}]}', status=200,
                            content_type="text/event-stream", response_body='data: {"choices":[]}\n\ndata: [DONE]\n'),
               factory.make(ToolResult, id="c1", name="calculate", result="1 = 1", status="ok", duration_ms=1,
                            category="utility", visibility="hidden")]
    inspector = Inspector()
    qtbot.addWidget(inspector)
    for event in events:
        inspector.handle_event(event)
    assert inspector.redraws == 1  # run_started drew; the burst after it waits for one frame
    inspector.flush()
    assert inspector.redraws == 2
    call_item = inspector.timeline.topLevelItem(0)
    inspector.timeline.setCurrentItem(call_item)
    shown = inspector.detail.toPlainText()
    assert "// request" in shown and '"message_count": 1' in shown and '"finish_reason": "tool_calls"' in shown
    assert '// request as sent: POST chat/completions\n{\n  "model": "m",' in shown
    assert shown.endswith('// response as received: HTTP 200 text/event-stream\ndata: {"choices":[]}\n\n'
                          'data: [DONE]\n')
    inspector.timeline.setCurrentItem(call_item.child(0))
    assert json.loads(inspector.detail.toPlainText())["result"] == "1 = 1"
    inspector.copy_button.click()
    assert QGuiApplication.clipboard().text() == inspector.detail.toPlainText()
    with qtbot.waitSignal(inspector.export_requested) as blocker:
        inspector.export_button.click()
    run_id, document = blocker.args
    assert run_id == "run-x" and json.loads(document)["model_calls"][0]["tools"][0]["status"] == "ok"
    assert json.loads(document)["model_calls"][0]["exchange"]["status"] == 200


def test_mcp_server_status_is_shown_above_the_runs(qtbot):
    from tools.mcp import ServerStatus

    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.show()
    assert not inspector.mcp_servers.isVisible()  # no servers configured
    inspector.set_mcp_servers([
        ServerStatus("time", "stdio", "running", None, ("get_current_time", "convert_time")),
        ServerStatus("web", "http", "restarting", "could not connect to http://127.0.0.1:9/mcp; restarting in 2 s",
                     restarts=2),
        ServerStatus("off", "stdio", "disabled"),
    ])
    assert inspector.mcp_servers.isVisible()
    assert inspector.mcp_servers.text().splitlines() == [
        "MCP time: running, 2 tools",
        "MCP web: restarting, 2 restarts (could not connect to http://127.0.0.1:9/mcp; restarting in 2 s)",
    ]
    inspector.set_mcp_servers([ServerStatus("off", "stdio", "disabled")])
    assert not inspector.mcp_servers.isVisible()


def test_one_tool_and_one_restart_are_singular(qtbot):
    from tools.mcp import ServerStatus

    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.set_mcp_servers([ServerStatus("time", "stdio", "running", None, ("get_current_time",), restarts=1)])
    assert inspector.mcp_servers.text() == "MCP time: running, 1 tool, 1 restart"


def test_columns_fit_their_text_times_are_relative_and_tooltips_are_literal(qtbot):
    from orchestration.limits import LoopLimits
    from orchestration.loop import RunLoop
    from orchestration.scripted import ScriptedModel

    events: list = []
    model = ScriptedModel([Step(calls=[("calculate", {"expression": "<b>6*7</b>"}), ("calculate", {"expression": "1"}),
                                       ("calculate", {"expression": "2"})]),
                           Step(text="42")])
    request = RunRequest(model="m", messages=[UserMessage(content="q")], tool_names=["calculate"])
    import asyncio

    asyncio.run(RunLoop(model, default_registry(), events.append, limits=LoopLimits(max_calls_per_turn=2))
                .run(request))
    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.resize(560, 600)
    inspector.show()
    inspector.show_trace(RunTrace.from_events(events))
    timeline = inspector.timeline
    for column in (0, 1):  # "calculate" nested under its call, "TOOL_CLAMP": never elided
        assert timeline.sizeHintForColumn(column) <= timeline.columnWidth(column)
    rows = inspector.timeline_rows()
    assert any(r[2] == "TOOL_CLAMP" for r in rows)
    started = events[0].ts
    tool_row = next(r for r in rows if r[1] == "calculate")
    first_change = next(e for e in events if e.type == "tool_calls").ts
    assert tool_row[4].startswith(f"queued +{first_change - started:,} ms")
    assert str(started) not in " ".join(" ".join(r) for r in rows)  # no epoch milliseconds anywhere
    call = timeline.topLevelItem(0)
    assert call.toolTip(3).startswith("<p style='white-space:pre-wrap'>")
    timeline.setCurrentItem(call.child(0))
    transitions = json.loads(inspector.detail.toPlainText())["transitions"]
    assert [t["status"] for t in transitions] == ["queued", "executing", "error"]  # "<b>" is no expression
    assert transitions[0]["after_start_ms"] == first_change - started and "ts" not in transitions[0]
