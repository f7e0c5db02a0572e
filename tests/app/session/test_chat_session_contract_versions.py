"""A run stored by a newer Parley under a newer minor contract version (1.5: additive, docs/events.md) reads as
this version's events: its reasoning, warning and model calls show, with no notice, and a field 1.5 added is
ignored. A run stamped with a newer major version (2.0: not additive) is not read; the notice says why. A real
history file, written by the real recorder, its stored events re-stamped the way a newer version would write
them."""

from __future__ import annotations

import json
import re

from app.paths import resolve_paths
from app.storage import History
from tests.app.session.test_chat_session_newer_events import record_run
from tests.support.session_window import shown_session_window


def restamp(history: History, run_id: str, version: str) -> int:
    """Stamp every stored event of the run with ``version`` and give each a field this version does not know."""
    rows = history.db.execute("SELECT seq, event FROM run_events WHERE run_id = ?", [run_id]).fetchall()
    for seq, text in rows:
        event = {**json.loads(text), "v": version, "provenance": {"made_by": "a newer Parley"}}
        history.db.execute("UPDATE run_events SET event = ? WHERE run_id = ? AND seq = ?",
                           [json.dumps(event), run_id, seq])
    history.db.conn.commit()
    return len(rows)


def open_stored(qtbot, version: str):
    with History.open(resolve_paths().database) as history:
        conversation = history.create_conversation(f"stored as {version}")
        run_id = record_run(history, conversation)
        stored = restamp(history, run_id, version)
    window, session = shown_session_window(qtbot)
    session.open_conversation(conversation)
    return window, session, run_id, stored


def test_a_run_stored_under_a_newer_minor_version_shows_whole(qtbot, parley_home):
    window, session, run_id, _stored = open_stored(qtbot, "1.5")

    shown = window.chat_view.messages()
    assert [m.role for m in shown] == ["user", "assistant"]  # no notice: everything was read
    assert shown[1].text.endswith("Otters float.")
    assert window.reasoning_pane.phase_count() == 1 and "Adding up first." in window.reasoning_pane.phase_text(0)
    assert len(window.banner.messages()) == 1 and "limit: 2 per turn" in window.banner.messages()[0]

    window.toggle_inspector()
    session.show_run(run_id)
    trace = window.inspector.trace
    assert trace is not None and trace.unread_note is None and trace.finish_reason == "stop"
    assert trace.calls[1].response()["text"] == "Otters float."
    timeline = window.inspector.timeline
    assert [timeline.topLevelItem(i).text(0) for i in range(timeline.topLevelItemCount())] == [
        "Model call 1", "Model call 2"]
    session.history.close()


def test_a_run_stored_under_a_newer_major_version_is_named_not_read(qtbot, parley_home):
    window, session, _run_id, stored = open_stored(qtbot, "2.0")

    shown = window.chat_view.messages()
    assert [m.role for m in shown] == ["user", "assistant", "notice"]
    assert shown[1].text.endswith("Otters float.")  # the answer is the stored message, not the events
    count = re.fullmatch(r"Part of this run is not shown: (\d+) saved events written under run event contract 2\.0, "
                         r"which this version of Parley \(contract 1\.4\) cannot read \(saved by a newer version\)\. "
                         r"Everything else is\.", shown[2].text)
    assert count is not None and 1 < int(count.group(1)) <= stored  # streamed pieces are joined before reading
    assert window.banner.messages() == []  # the warning lives only in the events
    session.history.close()
