"""Write transactions that wait their turn.

Two Parley processes (two terminals, or the window and a terminal) write the same history file. SQLite lets one
connection write at a time; the other waits up to the busy timeout, but only if it asks for the write lock
before it reads. A transaction that reads first and writes later has a snapshot that another connection's
commit makes stale, and SQLite refuses its write at once (SQLITE_BUSY_SNAPSHOT: "database is locked", without
waiting). So every write that depends on what it reads (the current leaf, the message it answers) goes
through ``write_transaction``, which begins IMMEDIATE and does its reads inside.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from app.storage.connection import Database


@contextlib.contextmanager
def write_transaction(db: Database) -> Iterator[None]:
    """One write transaction begun with ``BEGIN IMMEDIATE``: it takes the write lock first, waiting for another
    writer up to the busy timeout, so what it reads inside is what it writes on. (A transaction that reads first
    and writes later cannot wait: if another connection wrote in between, SQLite refuses the write at once.)
    Inside an open transaction it is a savepoint of that one."""
    with db.atomic(begin="BEGIN IMMEDIATE"):
        yield


__all__ = ["write_transaction"]
