"""One damaged value shown as damaged, instead of hiding the whole history.

Another program (the sqlite3 shell, a sync tool, a damaged file) can leave a BLOB where Parley stores text: a
title or a message written as ``x'ff00'``. Parley binds only ``str`` to its text columns (app/storage/text_safety.py
makes every string storable), so a BLOB there never comes from our own writes: it is the user's data, damaged.
Raising for it would make ``history list``, ``search`` and ``export`` fail for every conversation and hide a
whole conversation in the window for one value; instead the value is shown as ``DAMAGED_MARK`` followed by its
bytes decoded leniently (U+FFFD for each byte that is not UTF-8, and for NUL), and counted here so that the CLI
(stderr) and the window (status line) can say once how many values were shown that way.

The count is per history file and per process: each distinct (table, row, column) once.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from orchestration.stored_events import DAMAGED_KEY

__all__ = ["DAMAGED_EVENT", "DAMAGED_MARK", "damaged_count", "damaged_event", "forget", "listen", "note_damaged",
           "notice", "shown_text"]

# The visible mark in front of a damaged value (named in docs/storage.md).
DAMAGED_MARK = "[damaged value] "
# The type of the event read for a stored run event that is a BLOB; with DAMAGED_KEY set, the run trace skips it
# and names it in its "could not be read" note (orchestration/stored_events.py), and the rest of the run shows.
DAMAGED_EVENT = "damaged"

_seen: dict[Path, set[tuple[str, object, str]]] = {}
_listeners: list[Callable[[], None]] = []


def shown_text(data: bytes) -> str:
    """A BLOB found in a text column as the text shown for it: the mark, then its bytes decoded leniently."""
    return DAMAGED_MARK + data.decode("utf-8", "replace").replace("\x00", "\ufffd")


def damaged_event(path: Path, run_id: str, seq: int, data: bytes) -> dict[str, Any]:
    """The event read for a BLOB in run_events.event (noted once)."""
    note_damaged(path, "run_events", (run_id, seq), "event")
    return {"type": DAMAGED_EVENT, DAMAGED_KEY: True, "run_id": run_id, "seq": seq, "content": shown_text(data)}


def note_damaged(path: Path, table: str, row_id: object, column: str) -> None:
    """Count a damaged value; listeners hear of each one not counted before (from the reading thread)."""
    seen = _seen.setdefault(path, set())
    key = (table, row_id, column)
    if key in seen:
        return
    seen.add(key)
    for listener in list(_listeners):
        listener()


def listen(listener: Callable[[], None]) -> Callable[[], None]:
    """Call ``listener`` whenever a damaged value is counted for the first time; returns the way to stop."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener) if listener in _listeners else None


def damaged_count(path: Path | None = None) -> int:
    """How many distinct damaged values were shown, for one history file or (None) for all."""
    if path is not None:
        return len(_seen.get(path, ()))
    return sum(len(values) for values in _seen.values())


def notice(path: Path | None = None) -> str | None:
    """The one line telling the user about damaged values shown, or None when there were none."""
    count = damaged_count(path)
    if not count:
        return None
    values = "value" if count == 1 else "values"
    return f"{count} damaged {values} shown as \"{DAMAGED_MARK.strip()}\"; the rest of the history is intact."


def forget(path: Path | None = None) -> None:
    """Start counting again (for one file, or all)."""
    if path is None:
        _seen.clear()
    else:
        _seen.pop(path, None)
