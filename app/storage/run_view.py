"""A stored run's events for showing the run again, read without decoding every streamed piece in Python.

Opening a conversation rebuilds its latest run's view from the run's stored events (widgets/conversation_state.py).
A long answer is tens of thousands of ``content`` and ``reasoning`` rows; decoding each one's JSON in Python is
most of the cost of opening it (bench/conversation_switch.py). Here SQLite takes the text out of those rows
(``json_extract``) and each stretch of pieces of one kind and model call becomes one event; every other event is
read whole, as ``History.run_events`` reads it.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from app.storage.damaged_values import damaged_event
from app.storage.errors import storage_errors
from app.storage.history import History
from app.storage.integrity import DamagedDatabaseError
from orchestration.bounded_json import loads_bounded

_QUERY = ("SELECT seq, type, iteration, ts, "
          "CASE WHEN typeof(event) = 'blob' THEN NULL "
          "WHEN type IN ('content', 'reasoning') THEN json_extract(event, '$.content') END, "
          "CASE WHEN type IN ('content', 'reasoning') AND typeof(event) != 'blob' THEN NULL ELSE event END "
          "FROM run_events WHERE run_id = ? ORDER BY seq")


def run_view_events(history: History, run_id: str) -> list[dict[str, Any]]:
    """The run's stored events in order (JSON objects), consecutive text pieces of a model call joined."""
    with storage_errors(history.path, "read the run events"):
        try:
            rows = history.db.execute(_QUERY, [run_id]).fetchall()
        except sqlite3.OperationalError as exc:
            if "JSON" not in str(exc):
                raise
            raise DamagedDatabaseError(history.path, f"run_events of run {run_id} hold text that is not JSON "
                                                     f"({exc})") from exc
    events: list[dict[str, Any]] = []
    for seq, kind, iteration, ts, text, event in rows:
        if isinstance(event, bytes):
            events.append(damaged_event(history.path, run_id, seq, event))
            continue
        if kind in ("content", "reasoning"):
            last = events[-1] if events else None
            if last is not None and last["type"] == kind and last["iteration"] == iteration:
                last["pieces"].append(text if isinstance(text, str) else "")
            else:
                events.append({"type": kind, "run_id": run_id, "seq": seq, "ts": ts, "iteration": iteration,
                               "pieces": [text if isinstance(text, str) else ""]})
            continue
        try:
            events.append(loads_bounded(event, what="a stored event"))
        except (ValueError, TypeError) as exc:
            raise DamagedDatabaseError(history.path, f"run_events row {run_id}/{seq} has text in event that is not "
                                                     f"JSON ({exc})") from exc
    for event in events:
        if "pieces" in event:
            event["content"] = "".join(event.pop("pieces"))
    return events
