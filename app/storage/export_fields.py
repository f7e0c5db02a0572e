"""Fields of an import file that this version of Parley does not know, named instead of silently dropped.

The export format follows the run event contract's rule (docs/events.md, docs/storage.md): within one format
``version`` a newer Parley only adds fields, so this version imports what it knows and leaves the rest out. The
models in ``exchange.py`` keep such fields aside (``extra="allow"``); ``ignored_fields`` finds them, counted by
where they sit (``messages[].citations``), and ``ignored_note`` words them for the user, as the window and
``parley import`` say after importing.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel

FIELDS_SHOWN = 5  # at most this many left-out fields are named in the note; the rest are counted
FIELD_CHARS = 60  # a left-out field's path longer than this is cut in the note (it comes from the file)


def ignored_fields(model: BaseModel, path: str = "") -> Counter[str]:
    """Each field ``model`` (and every model inside it) kept aside as unknown, by path, with how often it came."""
    found: Counter[str] = Counter()
    for name in model.model_extra or {}:
        found[f"{path}{name}"] += 1
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            found += ignored_fields(value, f"{path}{name}.")
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, BaseModel):
                    found += ignored_fields(item, f"{path}{name}[].")
    return found


def ignored_note(model: BaseModel) -> str | None:
    """One sentence naming the fields left out of an import, or None when every field was known."""
    found = ignored_fields(model)
    if not found:
        return None
    names = [_cut(name) + (f" ({count}×)" if count > 1 else "") for name, count in found.most_common(FIELDS_SHOWN)]
    rest = len(found) - len(names)
    listed = ", ".join(names) + (f" and {rest} more" if rest else "")
    return (f"Left out {len(found)} field{'s' if len(found) != 1 else ''} this version of Parley does not know "
            f"(the file was made by a newer version): {listed}.")


def _cut(name: str) -> str:
    return name if len(name) <= FIELD_CHARS else name[:FIELD_CHARS - 1] + "…"


__all__ = ["FIELDS_SHOWN", "FIELD_CHARS", "ignored_fields", "ignored_note"]
