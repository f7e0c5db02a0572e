"""Indexing the attachments stored before migration 6 for search, a small batch at a time.

Migration 6 only creates the index (so opening a large history stays quick) and records in
``attachments_fts_pending.upto`` the highest attachment row it found; rows up to there are indexed here,
newest first, each batch in its own short write transaction that also lowers ``upto``. Rows above ``upto`` are
kept in the index by triggers, so a row is indexed exactly once whichever comes first. The window runs the
batches on a thread of its own over its own connection (``BackgroundIndexer``, started by
app/session/search_wiring.py); the CLI finishes the work before it searches. A batch holds at most
``BATCH_ROWS`` rows and about ``BATCH_CHARS`` characters of text, so it holds the write lock briefly
(bench/attachment_backfill.py) and a writer waiting for the lock waits no longer.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

from app.storage.connection import Database
from app.storage.errors import StorageError, storage_errors
from app.storage.migrations import ATTACHMENT_INDEX_CHARS
from app.storage.transactions import write_transaction

log = logging.getLogger(__name__)

# attachment rows indexed in one transaction, at most; also how many rows' text lengths a batch reads to choose
# its rows (reading a length reads the text), so kept small
BATCH_ROWS = 32
# characters of indexed text in one transaction, about: one document at the limit (ATTACHMENT_INDEX_CHARS), or
# several smaller ones; about 20 ms on a 2-core machine (bench/RESULTS.md "attachment_backfill")
BATCH_CHARS = 100_000
BATCH_PAUSE_S = 0.005  # between two batches of the background indexer: a writer waiting for the lock goes first
RETRY_S = 30.0  # after the database refused a batch, before the background indexer tries again
STOP_WAIT_S = 2.0  # how long stopping the background indexer waits for its current batch


def pending_upto(db: Database) -> int:
    """The highest attachment row not indexed yet (0: nothing waits)."""
    row = db.execute("SELECT upto FROM attachments_fts_pending").fetchone()
    return int(row[0]) if row is not None else 0


def pending_count(db: Database) -> int:
    """How many stored attachments still wait to be indexed."""
    upto = pending_upto(db)
    if upto == 0:
        return 0
    return int(db.execute("SELECT COUNT(*) FROM message_attachments WHERE id <= ?", [upto]).fetchone()[0])


def index_batch(db: Database, *, rows: int = BATCH_ROWS, chars: int = BATCH_CHARS) -> int:
    """Index the next batch of waiting attachments, newest first; returns how many rows were indexed.

    Reads and writes in one ``BEGIN IMMEDIATE`` transaction, so a row deleted or added meanwhile by another
    connection is seen consistently with ``upto``. With nothing waiting (``upto`` only ever goes down) it
    returns at once, without taking the write lock.
    """
    if pending_upto(db) == 0:
        return 0
    with write_transaction(db):
        upto = pending_upto(db)
        if upto == 0:
            return 0
        sizes = db.execute(
            "SELECT id, min(length(coalesce(text, '')), ?) FROM message_attachments WHERE id <= ? "
            "ORDER BY id DESC LIMIT ?", [ATTACHMENT_INDEX_CHARS, upto, rows]).fetchall()
        if not sizes:
            db.execute("UPDATE attachments_fts_pending SET upto = 0")
            return 0
        taken = 0
        lowest = upto
        for row_id, size in sizes:
            if taken and chars <= 0:
                break
            lowest = int(row_id)
            taken += 1
            chars -= int(size) + 1
        db.execute("INSERT INTO attachments_fts (rowid, name, text) SELECT id, name, text FROM attachments_indexed "
                   "WHERE id BETWEEN ? AND ?", [lowest, upto])
        remaining = db.execute("SELECT MAX(id) FROM message_attachments WHERE id < ?", [lowest]).fetchone()[0]
        db.execute("UPDATE attachments_fts_pending SET upto = ?", [int(remaining or 0)])
    return taken


def index_all(db: Database) -> int:
    """Index every waiting attachment (the CLI, before it searches); returns how many rows were indexed."""
    total = 0
    while True:
        done = index_batch(db)
        if done == 0:
            return total
        total += done


class BackgroundIndexer:
    """Indexes the waiting attachments on a thread of its own, over its own connection, so the window's thread
    never runs a batch: a write of the window waits at most one batch for the lock. ``on_done(rows indexed)``
    is called on that thread when nothing waits any more (not after ``stop``). A batch the database refuses
    (locked past the busy timeout, disk full) is logged and tried again after ``retry_s``; a bug ends the thread
    with its traceback (threading's excepthook)."""

    def __init__(self, path: Path, on_done: Callable[[int], None], *, retry_s: float = RETRY_S) -> None:
        self.path = path
        self.on_done = on_done
        self.retry_s = retry_s
        self.indexed = 0
        self.completed = False  # nothing waits any more (set before ``on_done`` is called)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="attachment indexing", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self, timeout: float = STOP_WAIT_S) -> None:
        """No batch after the current one; waits up to ``timeout`` seconds for it (a batch is well under that)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _connect(self) -> Database:
        from app.storage.database import BUSY_TIMEOUT_S, configure_connection
        from app.storage.text_safety import SafeTextConnection

        db = Database(sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, factory=SafeTextConnection))
        try:
            configure_connection(db)
        except BaseException:
            db.close()
            raise
        return db

    def _run(self) -> None:
        db: Database | None = None
        try:
            while not self._stop.is_set():
                try:
                    with storage_errors(self.path, "index the attachments for search"):
                        if db is None:
                            db = self._connect()
                        done = index_batch(db)
                except StorageError as problem:
                    log.warning("attachment indexing paused for %g s: %s", self.retry_s, problem)
                    self._stop.wait(self.retry_s)
                    continue
                if not done:
                    self.completed = True
                    self.on_done(self.indexed)
                    return
                self.indexed += done
                self._stop.wait(BATCH_PAUSE_S)  # lets a writer waiting for the lock take it first
        finally:
            if db is not None:
                db.close()
