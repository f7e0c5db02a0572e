"""Three-way merge of settings: what one writer changed since it read the file, put onto what the file holds now.

The window keeps its settings in memory for hours while ``parley local set``, ``parley providers add`` and the
others rewrite settings.json; each writer used to save its whole copy, so a later save put back every value it
had read before (the window's theme change undid the terminal's new context size). Merging keeps both: a field
one side changed and the other did not takes the change; objects merge field by field (a tool approval added in
the window and one added in a terminal both stay); lists and other values are whole (two edits of the model list
are a conflict). On a conflict the ``ours`` side wins: the caller passes the newer change there.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from app.settings.model import Settings

_ABSENT = object()


def merge_json(base: Any, ours: Any, theirs: Any) -> Any:
    """``theirs`` with the changes ``ours`` made to ``base``; ``ours`` wins where both changed the same value."""
    if ours == base:
        return theirs
    if theirs in (base, ours):
        return ours
    if isinstance(base, dict) and isinstance(ours, dict) and isinstance(theirs, dict):
        merged: dict[str, Any] = {}
        for key in [*theirs, *(k for k in ours if k not in theirs)]:  # theirs' order, then keys ours added
            value = merge_json(base.get(key, _ABSENT), ours.get(key, _ABSENT), theirs.get(key, _ABSENT))
            if value is not _ABSENT:
                merged[key] = value
        return merged
    return ours


def merge_settings(base: Settings, ours: Settings, theirs: Settings) -> Settings:
    """``theirs`` with ``ours``' changes since ``base``. A merge that does not validate (two edits that only
    clash together) is ``ours`` whole: the newer writer's settings, as before merging existed."""
    merged = merge_json(base.model_dump(mode="json"), ours.model_dump(mode="json"), theirs.model_dump(mode="json"))
    try:
        return Settings.model_validate(merged)
    except ValidationError:
        return ours.model_copy(deep=True)
