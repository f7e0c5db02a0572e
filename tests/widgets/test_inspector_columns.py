"""The inspector's timeline in a narrow drawer: the Details column starts inside the visible area, and the time
column gives room back when the drawer is widened."""

from __future__ import annotations

import asyncio

from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.run_trace import RunTrace
from orchestration.scripted import ScriptedModel, Step
from tools import default_registry
from widgets.drawer_space import DRAWER_WIDTH
from widgets.inspector import DETAILS_MIN_WIDTH, TIME_COLUMN_MAX_WIDTH, Inspector


def trace() -> RunTrace:
    events: list = []
    model = ScriptedModel([Step(calls=[("calculate", {"expression": "6*7"})]), Step(text="42")])
    request = RunRequest(model="a-model-with-a-rather-long-name", messages=[UserMessage(content="q")],
                         tool_names=["calculate"])
    asyncio.run(RunLoop(model, default_registry(), events.append).run(request))
    return RunTrace.from_events(events)


def details_start(inspector: Inspector) -> int:
    return inspector.timeline.header().sectionViewportPosition(3)


def test_details_start_inside_a_narrow_drawer_and_time_grows_back_when_widened(qtbot):
    inspector = Inspector()
    qtbot.addWidget(inspector)
    inspector.resize(DRAWER_WIDTH, 600)  # the drawer's width in the window
    inspector.show()
    inspector.show_trace(trace())
    timeline = inspector.timeline
    visible = timeline.viewport().width()
    whole_time = timeline.sizeHintForColumn(2) + timeline.columnWidth(0) + timeline.columnWidth(1)
    assert whole_time > visible - DETAILS_MIN_WIDTH  # the whole time text would push Details (nearly) out of view
    assert details_start(inspector) <= visible - DETAILS_MIN_WIDTH
    for column in (0, 1):
        assert timeline.sizeHintForColumn(column) <= timeline.columnWidth(column)  # never elided

    inspector.resize(1400, 600)
    qtbot.waitUntil(lambda: timeline.columnWidth(2) == min(timeline.sizeHintForColumn(2), TIME_COLUMN_MAX_WIDTH))
    assert details_start(inspector) <= timeline.viewport().width() - DETAILS_MIN_WIDTH
