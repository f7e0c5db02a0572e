"""Stored events are read back into the typed union; what cannot be read is skipped, counted by type and worded
for the user, never raised: a type from a newer version, a known type with bad fields, no type at all."""

from __future__ import annotations

import json

from orchestration.events import ContentDelta, Done, RunStarted, event_json
from orchestration.run_trace import RunTrace
from orchestration.stored_events import NAME_CHARS, NAMES_SHOWN, read_stored
from tests.support.run_script import RunScript


def stored_run() -> list[dict]:
    script = RunScript("run-7")
    events = [script.started(), script.content("Otters "), script.content("float."), script.done()]
    return [json.loads(event_json(e)) for e in events]


def test_a_run_that_reads_whole_has_no_note():
    read = read_stored(stored_run())
    assert [type(e) for e in read.events] == [RunStarted, ContentDelta, ContentDelta, Done]
    assert read.note() is None


def test_unreadable_events_are_skipped_and_named_and_the_rest_is_kept_in_order():
    stored = stored_run()
    envelope = {"v": "1.4", "run_id": "run-7", "seq": 50, "ts": 0, "iteration": 1}
    stored[2:2] = [
        {**envelope, "type": "citation", "source": "https://otters.example/"},
        {**envelope, "type": "tool_result", "name": "calculate"},  # no id, result, status ...
        {**envelope, "type": ["not", "a", "name"]},
        {**envelope},
    ]
    read = read_stored(stored)
    assert [type(e) for e in read.events] == [RunStarted, ContentDelta, ContentDelta, Done]
    assert dict(read.newer) == {"citation": 1}
    assert dict(read.unreadable) == {"tool_result": 1, "no type": 2}
    assert read.note() == ("Part of this run is not shown: 1 saved event of a kind this version of Parley does not "
                           "know (citation; saved by a newer version) and 3 saved events that could not be read "
                           "(no type, tool_result). Everything else is.")


def test_the_note_names_a_few_types_and_cuts_long_names():
    envelope = {"v": "1.4", "run_id": "run-7", "seq": 50, "ts": 0, "iteration": 1}
    long_name = "x" * (NAME_CHARS + 10)
    stored = [{**envelope, "type": f"kind_{n}"} for n in range(NAMES_SHOWN + 2)] + [{**envelope, "type": long_name}]
    note = read_stored(stored).note()
    assert note is not None and f"{NAMES_SHOWN + 3} saved events" in note and "and 3 more" in note
    alone = read_stored([{**envelope, "type": long_name}]).note() or ""
    assert long_name not in alone and f"({'x' * (NAME_CHARS - 1)}…;" in alone


def test_the_trace_of_a_stored_run_keeps_what_it_could_read_and_carries_the_note():
    stored = stored_run()
    stored.insert(1, {"v": "1.4", "run_id": "run-7", "seq": 50, "ts": 0, "iteration": 1, "type": "tool_result"})
    trace = RunTrace.from_stored(stored)
    assert trace.calls[0].response()["text"] == "Otters float." and trace.finish_reason == "stop"
    assert trace.unread_note is not None and "tool_result" in trace.unread_note
    assert all(not isinstance(e, dict) for e in trace.events)


def test_a_newer_minor_version_reads_and_its_new_fields_are_ignored():
    stored = [{**event, "v": "1.5", "citations": ["https://otters.example/"]} for event in stored_run()]
    stored.insert(2, {**stored[1], "type": "citation", "seq": 50})
    read = read_stored(stored)
    assert [type(e) for e in read.events] == [RunStarted, ContentDelta, ContentDelta, Done]
    assert [e.v for e in read.events] == ["1.5"] * 4  # the stamp is kept as stored
    assert "".join(e.content for e in read.events if isinstance(e, ContentDelta)) == "Otters float."
    assert dict(read.newer) == {"citation": 1} and not read.newer_major and not read.unreadable


def test_a_newer_major_version_is_counted_by_version_and_a_malformed_one_is_unreadable():
    stored = stored_run()
    stored[1] = {**stored[1], "v": "2.0"}
    stored[2] = {**stored[2], "v": "one.five"}
    read = read_stored(stored)
    assert [type(e) for e in read.events] == [RunStarted, Done]
    assert dict(read.newer_major) == {"2.0": 1} and dict(read.unreadable) == {"content": 1}
    assert read.note() == ("Part of this run is not shown: 1 saved event written under run event contract 2.0, "
                           "which this version of Parley (contract 1.4) cannot read (saved by a newer version) and "
                           "1 saved event that could not be read (content). Everything else is.")
