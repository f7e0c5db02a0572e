"""Indexing the attachments stored before migration 6 for search, a small batch at a time.

Migration 6 only creates the index (so opening a large history stays quick) and records in
``attachments_fts_pending.upto`` the highest attachment row it found; rows up to there are indexed here,
newest first, each batch in its own short write transaction that also lowers ``upto``. Rows above ``upto`` are
kept in the index by triggers, so a row is indexed exactly once whichever comes first. The window runs one
batch per event-loop turn (app/session/attachment_indexing.py); the CLI finishes the work before it searches.
A batch holds at most ``BATCH_ROWS`` rows and about ``BATCH_CHARS`` characters of text, so one batch stays a
few milliseconds long (bench/attachment_backfill.py) and a writer waiting for the lock waits no longer.
"""

from __future__ import annotations

from app.storage.connection import Database
from app.storage.migrations import ATTACHMENT_INDEX_CHARS
from app.storage.transactions import write_transaction

# attachment rows indexed in one transaction, at most; also how many rows' text lengths a batch reads to choose
# its rows (reading a length reads the text), so kept small
BATCH_ROWS = 32
# characters of indexed text in one transaction, about: one document at the limit (ATTACHMENT_INDEX_CHARS), or
# several smaller ones; about 20 ms on a 2-core machine (bench/RESULTS.md "attachment_backfill")
BATCH_CHARS = 100_000


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
