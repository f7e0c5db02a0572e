"""The id of the row an INSERT added, as an ``int``.

``sqlite3.Cursor.lastrowid`` is typed ``int | None`` (None before any INSERT); every INSERT Parley runs adds one
row, so a None here is a programming error and is raised as one instead of reaching ``int(None)``.
"""

from __future__ import annotations

import sqlite3


def inserted_id(cursor: sqlite3.Cursor) -> int:
    """The rowid of the row the INSERT just run on ``cursor`` added."""
    row_id = cursor.lastrowid
    if row_id is None:
        raise RuntimeError("the INSERT added no row, so there is no id to read")
    return row_id
