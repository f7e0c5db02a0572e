"""Stored run events read back into the event union, with what could not be read named instead of dropped.

The history keeps each run's events as JSON objects. A conversation reopened later, or a run opened in the
inspector, needs them as the same typed events a live run emits (``RunEvent``), so the panes and the trace
fold one kind of value. Three things can stand in the way: an event whose ``type`` this version does not
know (a newer Parley wrote it; the contract allows new types within 1.x), an event stamped with a newer major
contract version (2.0 may change what fields mean) and an event of a known type whose fields do not validate.
None may cost the rest of the run: each is skipped and counted (by type, or by version), and ``note()`` words
what was left out so the window can say so. An event of a newer minor version (1.5) reads like this version's:
minor versions only add, and the fields it added are ignored.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from orchestration.events import (
    CONTRACT_MAJOR,
    CONTRACT_VERSION,
    RunEvent,
    ValidationError,
    contract_major,
    parse_event,
)

NAMES_SHOWN = 3  # at most this many unreadable event types are named in the note; the rest are counted
NAME_CHARS = 40  # a stored type name longer than this is cut in the note (it comes from the file, not from us)


@dataclass
class StoredEvents:
    """A run's stored events as the union, and the types of those that were skipped."""

    events: list[RunEvent] = field(default_factory=list)
    newer: Counter[str] = field(default_factory=Counter)  # type -> count: types this version does not know
    unreadable: Counter[str] = field(default_factory=Counter)  # type -> count: known types that did not validate
    newer_major: Counter[str] = field(default_factory=Counter)  # version -> count: stamped with a newer major

    def note(self) -> str | None:
        """One sentence for the user about what is not shown, or None when every event was read."""
        parts = []
        if self.newer:
            parts.append(f"{_count(self.newer)} of a kind this version of Parley does not know "
                         f"({_names(self.newer)}; saved by a newer version)")
        if self.newer_major:
            versions = ", ".join(version for version, _count in self.newer_major.most_common(NAMES_SHOWN))
            parts.append(f"{_count(self.newer_major)} written under run event contract {versions}, which this "
                         f"version of Parley (contract {CONTRACT_VERSION}) cannot read (saved by a newer version)")
        if self.unreadable:
            parts.append(f"{_count(self.unreadable)} that could not be read ({_names(self.unreadable)})")
        if not parts:
            return None
        return f"Part of this run is not shown: {' and '.join(parts)}. Everything else is."


def _count(types: Counter[str]) -> str:
    total = sum(types.values())
    return f"{total} saved event{'s' if total != 1 else ''}"


def _names(types: Counter[str]) -> str:
    names = [name for name, _count in types.most_common(NAMES_SHOWN)]
    rest = len(types) - len(names)
    return ", ".join(names) + (f" and {rest} more" if rest else "")


def _cut(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[:NAME_CHARS - 1] + "…"


# A stored event the history's reader could not read at all (a BLOB another program left) carries this key; it
# is named as unreadable, not as one from a newer version.
DAMAGED_KEY = "damaged"
DAMAGED_NAME = "damaged in the history file"


def read_stored(stored: Iterable[Mapping[str, Any]]) -> StoredEvents:
    """Parse stored event objects in order; unknown or invalid ones are skipped and counted, never raised."""
    read = StoredEvents()
    for data in stored:
        if data.get(DAMAGED_KEY) is True:  # the reader found bytes, not an event (app/storage/damaged_values.py)
            read.unreadable[DAMAGED_NAME] += 1
            continue
        kind = data.get("type")
        if not isinstance(kind, str) or not kind:
            read.unreadable["no type"] += 1
            continue
        version = data.get("v", CONTRACT_VERSION)
        major = contract_major(version)
        if major is not None and major > CONTRACT_MAJOR:  # not additive: its fields may mean something else
            read.newer_major[_cut(str(version))] += 1
            continue
        name = _cut(kind)
        try:
            event = parse_event(dict(data))
        except ValidationError:
            read.unreadable[name] += 1
            continue
        if event is None:
            read.newer[name] += 1
        else:
            read.events.append(event)
    return read


__all__ = ["DAMAGED_KEY", "DAMAGED_NAME", "NAMES_SHOWN", "NAME_CHARS", "StoredEvents", "read_stored"]
