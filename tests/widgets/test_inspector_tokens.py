"""The inspector shows token counts a provider did not report as unknown, not 0."""

from __future__ import annotations

from orchestration.events import EventFactory, ModelCallFinished, ModelCallStarted, RunStarted
from orchestration.run_trace import RunTrace
from widgets.inspector import Inspector


def test_tokens_a_provider_did_not_report_show_as_unknown(qtbot):
    factory = EventFactory("run-u")
    events = [factory.make(RunStarted, provider="p", model="m")]
    factory.iteration = 1
    events += [factory.make(ModelCallStarted, model="m", message_count=1),
               factory.make(ModelCallFinished, finish_reason="stop", duration_ms=5)]
    inspector = Inspector()
    qtbot.addWidget(inspector)
    for event in events:
        inspector.handle_event(event)
    inspector.flush()
    assert "unknown/unknown tokens" in inspector.timeline.topLevelItem(0).text(2)
    assert "unknown in · unknown out" in RunTrace.from_events(events).summary().label()
