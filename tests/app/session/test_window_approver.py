"""Approval in the window: a scripted run with a file tool that asks; allow, always and deny, what the model
receives, what is saved, and Stop while the question is open."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.runs.tool_setup import tool_registry
from app.session.run_controller import RunController
from app.session.window_approver import WindowApprover
from app.settings import Settings
from orchestration.loop import RunRequest
from orchestration.messages import UserMessage
from orchestration.scripted import ScriptedModel, Step
from orchestration.tool_turn import DENIED_BY_USER
from widgets.approval_panel import ApprovalPanel


@pytest.fixture
def workspace(tmp_path: Path) -> Settings:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "notes.txt").write_text("the secret word is otter\n")
    return Settings(workspace_folders=[str(folder)])


def run_with(qtbot, qasync_loop, settings: Settings, click, calls=1):
    panel = ApprovalPanel()
    qtbot.addWidget(panel)
    remembered: list[str] = []
    approver = WindowApprover(panel, lambda: settings, remembered.append)
    panel_asked = asyncio.Event()
    original_ask = panel.ask

    def ask(pending):
        original_ask(pending)
        panel_asked.set()

    panel.ask = ask
    steps = [Step(calls=[("read_file", {"path": "notes.txt"})] +
                  [("read_file", {"path": "notes.txt", "start_line": n}) for n in range(1, calls)]),
             Step(text="Done.")]
    model = ScriptedModel(steps)
    controller = RunController()
    events = []
    controller.event_emitted.connect(events.append)
    request = RunRequest(model="m", messages=[UserMessage(content="read my notes")], tool_names=["read_file"])
    task = controller.start(model, tool_registry(settings, lambda _: None), request, approver=approver)

    async def answer() -> None:
        await asyncio.wait_for(panel_asked.wait(), 5)
        click(panel)

    qasync_loop.run_until_complete(answer())
    result = qasync_loop.run_until_complete(asyncio.wait_for(task, 5))
    model.assert_exhausted()
    return model, events, remembered, result, panel


def test_allow_once_runs_the_tool(qtbot, qasync_loop, workspace):
    model, _events, remembered, result, panel = run_with(qtbot, qasync_loop, workspace,
                                                         lambda p: p.cards[0].allow.click())
    tool_message = model.requests[1].messages[-1]
    assert "otter" in tool_message.content and tool_message.status == "ok"
    assert remembered == [] and result.answer == "Done." and panel.isHidden()


def test_deny_sends_denied_by_the_user(qtbot, qasync_loop, workspace):
    model, events, remembered, _, _ = run_with(qtbot, qasync_loop, workspace,
                                               lambda p: p.cards[0].deny.click())
    tool_message = model.requests[1].messages[-1]
    assert tool_message.content == DENIED_BY_USER and tool_message.status == "denied"
    statuses = [e.status for e in events if e.type == "tool_result"]
    assert statuses == ["denied"] and remembered == []


def test_always_allow_is_remembered(qtbot, qasync_loop, workspace):
    model, _, remembered, _, _ = run_with(qtbot, qasync_loop, workspace, lambda p: p.cards[0].always.click())
    assert remembered == ["read_file"]
    assert "otter" in model.requests[1].messages[-1].content


def test_batch_one_by_one(qtbot, qasync_loop, workspace):
    def decide(panel):
        panel.cards[0].allow.click()
        panel.cards[1].deny.click()

    model, _, _, _, _ = run_with(qtbot, qasync_loop, workspace, decide, calls=2)
    results = [m for m in model.requests[1].messages if m.role == "tool"]
    assert [r.status for r in results] == ["ok", "denied"]


async def _never(*_args):
    raise AssertionError("the panel must not be asked")


def test_settings_allow_skips_the_question(qtbot, qasync_loop, workspace):
    workspace.tools.approval["read_file"] = "allow"
    panel = ApprovalPanel()
    qtbot.addWidget(panel)
    panel.ask = _never
    approver = WindowApprover(panel, lambda: workspace, lambda _: None)
    model = ScriptedModel([Step(calls=[("read_file", {"path": "notes.txt"})]), Step(text="ok")])
    registry = tool_registry(Settings(workspace_folders=workspace.workspace_folders), lambda _: None)  # still asks
    controller = RunController()
    request = RunRequest(model="m", messages=[UserMessage(content="x")], tool_names=["read_file"])
    qasync_loop.run_until_complete(controller.start(model, registry, request, approver=approver))
    assert "otter" in model.requests[1].messages[-1].content


def test_stop_while_asking_cancels_cleanly(qtbot, qasync_loop, workspace):
    panel = ApprovalPanel()
    qtbot.addWidget(panel)
    approver = WindowApprover(panel, lambda: workspace, lambda _: None)
    model = ScriptedModel([Step(calls=[("read_file", {"path": "notes.txt"})])])
    controller = RunController()
    events = []
    controller.event_emitted.connect(events.append)
    request = RunRequest(model="m", messages=[UserMessage(content="x")], tool_names=["read_file"])
    task = controller.start(model, tool_registry(workspace, lambda _: None), request, approver=approver)

    asked = asyncio.Event()
    original_ask = panel.ask
    panel.ask = lambda pending: (original_ask(pending), asked.set())

    async def stop_when_asked() -> None:
        await asked.wait()
        assert approver.waiting and not panel.isHidden()
        controller.stop()

    qasync_loop.run_until_complete(asyncio.wait_for(stop_when_asked(), 5))
    result = qasync_loop.run_until_complete(asyncio.wait_for(task, 5))
    assert result.finish_reason == "cancelled" and events[-1].type == "done"
    assert panel.isHidden() and not approver.waiting
    assert not any(e.type == "tool_executing" for e in events)
