"""Opening the history database: the file, the pragmas every connection needs, migrations and crash recovery.

WAL journaling keeps readers and the writer out of each other's way and makes every commit atomic even when
the process is killed; ``synchronous=NORMAL`` is the usual WAL pairing (a power cut may lose the last
commits, never the file). Foreign keys are enforced on every connection. A file that is not a database, a
lock held elsewhere or a full disk becomes a StorageError naming the file, and so does a schema another program
damaged (app/storage/integrity.py); the file is never rewritten. Text with lone surrogates is stored with
U+FFFD in their place (app/storage/text_safety.py).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from app.errors import describe_os_error
from app.storage.connection import Database
from app.storage.errors import StorageError, storage_errors
from app.storage.integrity import DamagedDatabaseError, check_schema, expected_schema
from app.storage.migrations import MIGRATIONS_TABLE, SchemaTooNewError, apply_migrations
from app.storage.recovery import recover_interrupted_runs
from app.storage.text_safety import SafeTextConnection

# How long a statement waits for another connection's lock before giving up, in seconds.
BUSY_TIMEOUT_S = 5.0


def configure_connection(db: Database) -> None:
    """Pragmas for every connection to the history database."""
    db.execute("PRAGMA foreign_keys = ON")
    mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise sqlite3.OperationalError(f"could not switch to WAL journaling (journal_mode is {mode})")
    db.execute("PRAGMA synchronous = NORMAL")


def open_database(path: Path, *, busy_timeout: float = BUSY_TIMEOUT_S) -> Database:
    """Open (creating if needed) the history database at ``path``, migrated and recovered.

    Raises StorageError when the file or its folder cannot be used.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(f"could not create the folder {path.parent} for the history database "
                           f"({describe_os_error(exc)}).", path) from exc
    if path.exists() and not path.is_file():
        raise StorageError(f"the history database {path} is not a file. Move it aside and try again.", path)
    with storage_errors(path, "open the history"):
        conn = sqlite3.connect(path, timeout=busy_timeout, factory=SafeTextConnection)
    db = Database(conn)
    try:
        with storage_errors(path, "open the history"):
            configure_connection(db)
            tables = set(db.table_names())
            if MIGRATIONS_TABLE not in tables and tables & set(expected_schema().tables):
                raise DamagedDatabaseError(path, f"its table {MIGRATIONS_TABLE} is missing")
            apply_migrations(db)
            check_schema(db, path)
            recover_interrupted_runs(db)
    except SchemaTooNewError as exc:
        conn.close()
        raise StorageError(f"the history database {path} was written by a newer version of Parley (schema "
                           f"{exc.found}; this version knows {exc.known}). Parley left it untouched; update Parley "
                           "to use it.", path) from exc
    except BaseException:
        conn.close()
        raise
    return db
