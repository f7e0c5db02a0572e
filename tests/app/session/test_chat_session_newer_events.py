"""A conversation whose stored run holds events this version cannot read (a type a newer Parley added, or a
known type whose fields do not validate) still opens: a notice under the messages names what is not shown, and
the messages, the reasoning pane, the warning banner and the inspector show everything else. A real history
file, written by the real recorder, with the extra rows put in the way a newer version would store them."""

from __future__ import annotations

import asyncio
import json

from app.paths import resolve_paths
from app.storage import History
from app.storage.run_recorder import RunRecorder
from orchestration.limits import LoopLimits
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.scripted import ScriptedModel, Step
from tests.support.session_window import shown_session_window
from tools import default_registry


def record_run(history: History, conversation: int) -> str:
    recorder = RunRecorder(history, conversation)
    ids = recorder.begin("Sum these", provider="scripted", model="m")
    model = ScriptedModel([Step(calls=[("calculate", {"expression": f"{n}+1"}) for n in range(3)]),
                           Step(text=["Otters ", "float."], reasoning="Adding up first.")])
    loop = RunLoop(model, default_registry(), recorder, limits=LoopLimits(max_calls_per_turn=2))
    asyncio.run(loop.run(RunRequest(model="m", messages=[UserMessage(content="Sum these")],
                                    tool_names=["calculate"], run_id=ids.run_id,
                                    conversation_id=str(conversation))))
    return ids.run_id


def store_before_done(history: History, run_id: str, events: list[dict]) -> None:
    """Put ``events`` into the stored run just before its ``done``, as a newer version's recorder would."""
    (done_seq,) = history.db.execute("SELECT seq FROM run_events WHERE run_id = ? AND type = 'done'",
                                     [run_id]).fetchone()
    history.db.execute("UPDATE run_events SET seq = seq + ? WHERE run_id = ? AND type = 'done'",
                       [len(events), run_id])
    for offset, event in enumerate(events):
        row = {"v": "1.4", "run_id": run_id, "seq": done_seq + offset, "ts": 1, "iteration": 2, **event}
        history.db.execute("INSERT INTO run_events (run_id, seq, type, iteration, ts, event) VALUES (?, ?, ?, ?, ?, ?)",
                           [run_id, row["seq"], row["type"], 2, 1, json.dumps(row)])
    history.db.conn.commit()


def test_events_this_version_cannot_read_are_named_and_the_rest_is_shown(qtbot, parley_home):
    with History.open(resolve_paths().database) as history:
        conversation = history.create_conversation("from the future")
        run_id = record_run(history, conversation)
        store_before_done(history, run_id, [
            {"type": "citation", "source": "https://otters.example/", "quote": "they float"},
            {"type": "citation", "source": "https://otters.example/2", "quote": "they hold hands"},
            {"type": "tool_result", "id": "call_9", "name": "calculate"},  # status, result and the rest missing
        ])

    window, session = shown_session_window(qtbot)
    session.open_conversation(conversation)

    shown = window.chat_view.messages()
    assert [m.role for m in shown] == ["user", "assistant", "notice"]
    assert shown[1].text.endswith("Otters float.")
    note = shown[2].text
    assert note == ("Part of this run is not shown: 2 saved events of a kind this version of Parley does not know "
                    "(citation; saved by a newer version) and 1 saved event that could not be read (tool_result). "
                    "Everything else is.")
    assert note in window.chat_view.toPlainText()
    assert window.reasoning_pane.phase_count() == 1 and "Adding up first." in window.reasoning_pane.phase_text(0)
    assert len(window.banner.messages()) == 1 and "limit: 2 per turn" in window.banner.messages()[0]

    window.toggle_inspector()
    session.show_run(run_id)  # the run as the inspector reads it back from the database
    timeline = window.inspector.timeline
    rows = [timeline.topLevelItem(i) for i in range(timeline.topLevelItemCount())]
    assert [r.text(0) for r in rows] == ["Model call 1", "Model call 2", "Not shown"]
    assert rows[-1].text(3) == note
    assert [rows[0].child(i).text(0) for i in range(rows[0].childCount())] == ["calculate"] * 3 + ["Warning"]
    assert window.inspector.trace is not None and window.inspector.trace.finish_reason == "stop"
    session.history.close()
