"""What a tool call's outcome is, told the same way wherever it is shown.

The loop answers some calls without running them: calls beyond the per-turn limit get a fixed "not run" text,
and identical calls in one turn share the first call's result. The live chat view and the view of a reopened
conversation both describe a call from what they have (its status, result text, duration and the calls of its
turn), so the rule lives here, Qt-free, and both show the same words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from orchestration.bounded_json import loads_bounded

__all__ = ["Outcome", "describe", "duplicate_of", "normalized_key", "not_run_limit", "not_run_text"]

STATUS_MARK = {"running": "…", "ok": "✓", "error": "✗", "timeout": "⏱", "denied": "⊘", "pending": "◌"}
# Shown for a call that waits for the user's approval, and for one the run ended before it ran (Stop, an error).
PENDING_LABEL = "waiting for your approval"
STOPPED_LABEL = "not run (the run ended first)"
NOT_RUN_MARK = "–"
_NOT_RUN = re.compile(r"Not run: at most (\d+) tool calls are run per turn\.")


class CallLike(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def arguments(self) -> str: ...


@dataclass(frozen=True)
class Outcome:
    mark: str
    label: str


def not_run_text(limit: int) -> str:
    """The result the model gets for a call beyond the per-turn limit."""
    return f"Not run: at most {limit} tool calls are run per turn. Ask again for what is still needed."


def not_run_limit(result: str) -> int | None:
    """The per-turn limit named by a "not run" result, or None for any other result."""
    found = _NOT_RUN.fullmatch(result.split(" Ask again", 1)[0])
    return int(found.group(1)) if found else None


def normalized_key(name: str, arguments: str) -> tuple[str, str]:
    """Calls with equal keys are the same call (arguments compared as JSON, key order ignored)."""
    try:
        value = loads_bounded(arguments, what="tool call arguments") if arguments.strip() else {}
        args = json.dumps(value, sort_keys=True, separators=(",", ":"))
    except ValueError:  # not JSON, or past the depth and size limits: compared as written
        args = arguments.strip()
    return name, args


def duplicate_of(calls: Iterable[tuple[str, CallLike]]) -> dict[str, str]:
    """For the calls of one model turn (``(id, call)`` in order): each repeated call's id -> the first one's id."""
    first: dict[tuple[str, str], str] = {}
    repeats: dict[str, str] = {}
    for call_id, call in calls:
        key = normalized_key(call.name, call.arguments)
        if key in first:
            repeats[call_id] = first[key]
        else:
            first[key] = call_id
    return repeats


def describe(status: str, result: str, duration_ms: int | None, *, repeated: bool = False) -> Outcome:
    """The mark and words for a call: "not run (limit of N per turn)", "same as call above", or the status."""
    limit = not_run_limit(result) if status == "error" else None
    if limit is not None:
        return Outcome(NOT_RUN_MARK, f"not run (limit of {limit} per turn)")
    if status == "pending":
        return Outcome(STATUS_MARK["pending"], PENDING_LABEL)
    if status == "stopped":
        return Outcome(NOT_RUN_MARK, STOPPED_LABEL)
    mark = STATUS_MARK.get(status, "?")
    if repeated and status != "running":
        return Outcome(mark, "same as call above")
    duration = f" · {duration_ms} ms" if duration_ms is not None else ""
    return Outcome(mark, f"{status}{duration}")
