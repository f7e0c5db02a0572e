"""An event serialises to one JSON line even when a provider's text holds a lone surrogate."""

from __future__ import annotations

import json

from orchestration.events import ContentDelta, EventFactory, event_json, parse_event


def test_an_event_with_a_lone_surrogate_still_serialises():
    event = EventFactory("run").make(ContentDelta, content="a\ud800b")
    line = event_json(event)
    assert "\n" not in line
    assert json.loads(line)["content"] == "a\ud800b"


def test_an_ordinary_event_is_pydantics_compact_json():
    event = EventFactory("run").make(ContentDelta, content="é")
    assert event_json(event) == event.model_dump_json()
    assert parse_event(json.loads(event_json(event))) == event
