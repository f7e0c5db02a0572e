"""The run controller drives the loop on the Qt event loop and forwards every event as a signal."""

from __future__ import annotations

import asyncio

import pytest

from app.session.run_controller import RunController
from orchestration.loop import RunRequest
from orchestration.messages import UserMessage
from orchestration.providers.config import Capabilities
from orchestration.scripted import ScriptedModel, Step
from tools import default_registry


def request() -> RunRequest:
    return RunRequest(model="m", messages=[UserMessage(content="hi")], tool_names=["calculate"])


def test_events_arrive_in_order_and_run_finishes(qasync_loop):
    controller = RunController()
    events, finished, running = [], [], []
    controller.event_emitted.connect(events.append)
    controller.run_finished.connect(finished.append)
    controller.running_changed.connect(running.append)
    sunk = []
    model = ScriptedModel([Step(calls=[("calculate", {"expression": "2+3"})], text="x"), Step(text="It is 5.")])
    task = controller.start(model, default_registry(), request(), sinks=[sunk.append])
    result = qasync_loop.run_until_complete(task)
    model.assert_exhausted()
    assert events[0].type == "run_started" and events[-1].type == "done"
    assert sunk == events
    assert finished == [result] and result.answer == "It is 5."
    assert running == [True, False] and not controller.running


def test_stop_cancels_and_keeps_partial(qasync_loop):
    controller = RunController()
    events = []
    controller.event_emitted.connect(events.append)
    model = ScriptedModel([Step(text=["partial ", "text"], hang_after_output=True)])
    task = controller.start(model, default_registry(), request())

    first_content = asyncio.Event()
    controller.event_emitted.connect(lambda e: first_content.set() if e.type == "content" else None)

    async def stop_after_content() -> None:
        await asyncio.wait_for(first_content.wait(), 5)
        controller.stop()

    qasync_loop.run_until_complete(stop_after_content())
    result = qasync_loop.run_until_complete(task)
    assert result.finish_reason == "cancelled"
    assert events[-1].type == "done" and events[-1].finish_reason == "cancelled"
    assert result.new_messages[-1].text == "partial text"


def test_only_one_run_at_a_time(qasync_loop):
    controller = RunController()
    model = ScriptedModel([Step(text="a", hang_after_output=True)])
    controller.start(model, default_registry(), request())
    with pytest.raises(RuntimeError, match="already active"):
        controller.start(model, default_registry(), request())
    controller.stop()
    qasync_loop.run_until_complete(asyncio.sleep(0.05))


class BrokenAdapter:
    provider_name = "broken"
    capabilities = Capabilities()

    async def aclose(self) -> None:
        return None

    async def stream(self, request):
        raise ZeroDivisionError("a bug, not a provider error")
        yield  # pragma: no cover


def test_a_bug_in_the_run_is_reported_not_swallowed(qasync_loop):
    controller = RunController()
    crashes = []
    controller.crashed.connect(crashes.append)
    task = controller.start(BrokenAdapter(), default_registry(), request())
    with pytest.raises(ZeroDivisionError):
        qasync_loop.run_until_complete(task)
    assert len(crashes) == 1 and "ZeroDivisionError" in crashes[0]
    assert not controller.running
