"""The two ways every ``parley ... list`` command ends early: ``--json`` prints the rows as one JSON array on
stdout, and an empty list prints its hint on stderr (so stdout stays empty for scripts). One helper so the
history, search, providers and MCP listings keep the same contract."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

Row = TypeVar("Row")


def _as_is(row: object) -> object:
    return row


def printed_json_or_empty(rows: Sequence[Row], *, as_json: bool, empty: str,
                          to_json: Callable[[Row], object] = _as_is) -> bool:
    """True when the listing is done: the rows went out as JSON (``to_json`` turns one row into JSON data, only
    then), or there were none and ``empty`` went to stderr. False leaves the text table to the caller."""
    if as_json:
        print(json.dumps([to_json(row) for row in rows], indent=2))
        return True
    if not rows:
        print(empty, file=sys.stderr)
        return True
    return False
