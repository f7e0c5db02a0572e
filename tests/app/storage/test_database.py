"""Opening the history database: pragmas, migrations, and files that cannot be used (never overwritten)."""

from __future__ import annotations

import importlib.metadata
import re
import sqlite3
import tomllib
from pathlib import Path

import pytest
from sqlite_utils import Database

from app.storage import History, StorageError
from app.storage.errors import storage_errors
from app.storage.migrations import LATEST_VERSION, MIGRATIONS, Migration, apply_migrations, current_version


def test_new_database_is_wal_with_foreign_keys_and_recorded_migrations(history, db_path):
    assert db_path.is_file()
    assert history.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert history.db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    rows = history.db.execute("SELECT version, name FROM schema_migrations").fetchall()
    assert [r[0] for r in rows] == [m.version for m in MIGRATIONS]
    tables = set(history.db.table_names())
    assert {"conversations", "messages", "tool_calls", "tool_outputs", "runs", "run_events", "messages_fts",
            "conversations_fts"} <= tables
    with pytest.raises(sqlite3.IntegrityError):
        history.db.execute("INSERT INTO messages (conversation_id, role, created_at, updated_at) "
                           "VALUES (999, 'user', 0, 0)")


def test_reopening_applies_nothing_again(db_path):
    History.open(db_path).close()
    db = Database(sqlite3.connect(db_path))
    assert apply_migrations(db) == []
    assert current_version(db) == LATEST_VERSION
    db.close()


def test_a_later_migration_applies_once_and_a_failing_one_rolls_back(db_path):
    History.open(db_path).close()
    db = Database(sqlite3.connect(db_path))
    later = (*MIGRATIONS, Migration(LATEST_VERSION + 1, "extra", "CREATE TABLE extra (a TEXT);"))
    assert apply_migrations(db, later) == [LATEST_VERSION + 1]
    broken = (*later, Migration(LATEST_VERSION + 2, "broken", "CREATE TABLE half (a); CREATE TABLE extra (b);"))
    with pytest.raises(sqlite3.OperationalError, match="already exists"):
        apply_migrations(db, broken)
    assert current_version(db) == LATEST_VERSION + 1
    assert "half" not in db.table_names()
    db.close()


def test_garbage_file_is_reported_and_left_untouched(db_path):
    db_path.parent.mkdir(parents=True)
    garbage = b"these are my notes, not a database\n" * 200
    db_path.write_bytes(garbage)
    with pytest.raises(StorageError) as caught:
        History.open(db_path)
    message = str(caught.value)
    assert str(db_path) in message and "damaged or is not a Parley database" in message
    assert "left the file untouched" in message
    assert db_path.read_bytes() == garbage


def test_damaged_database_is_reported_and_left_untouched(db_path):
    with History.open(db_path) as history:
        for i in range(50):
            history.create_conversation(f"conversation {i}" * 20)
        history.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(db_path.read_bytes())
    page = 4096
    data[page * 2:page * 4] = b"\xa5" * (page * 2)  # scribble over some of the tables' pages
    db_path.write_bytes(bytes(data))
    with pytest.raises(StorageError, match="damaged") as caught, History.open(db_path) as history:
        history.list_conversations()
        history.db.execute("SELECT * FROM conversations_fts").fetchall()
        raise AssertionError("the damage went unnoticed")
    assert str(db_path) in str(caught.value)
    assert db_path.read_bytes() == bytes(data)


def test_database_from_a_newer_parley_is_refused(db_path):
    with History.open(db_path) as history:
        history.db.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'future', 0)")
    with pytest.raises(StorageError, match="newer version of Parley") as caught:
        History.open(db_path)
    assert str(db_path) in str(caught.value)
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT MAX(version) FROM schema_migrations").fetchone()[0] == 999
    conn.close()


def test_locked_database_gives_a_clear_message(history, db_path):
    other = sqlite3.connect(db_path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with History.open(db_path, busy_timeout=0.05) as second, pytest.raises(StorageError) as caught:
            second.create_conversation("blocked")
        assert "locked by another program" in str(caught.value) and str(db_path) in str(caught.value)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert history.create_conversation("after the lock") > 0


def test_folder_that_cannot_be_created_is_named(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StorageError, match="could not create the folder") as caught:
        History.open(blocker / "data" / "history.db")
    assert str(blocker / "data") in str(caught.value)


def test_a_directory_where_the_file_should_be_is_refused(db_path):
    db_path.mkdir(parents=True)
    with pytest.raises(StorageError, match="is not a file"):
        History.open(db_path)


def test_bugs_are_not_disguised_as_storage_errors(history, db_path):
    with pytest.raises(sqlite3.IntegrityError), storage_errors(db_path, "test"):
        history.db.execute("INSERT INTO messages (conversation_id, role, created_at, updated_at) "
                           "VALUES (999, 'user', 0, 0)")
    with pytest.raises(sqlite3.OperationalError, match="no such table"), storage_errors(db_path, "test"):
        history.db.execute("SELECT * FROM no_such_table")


# The sqlite-utils release whose transactions the storage code relies on: db.atomic(), execute() that commits
# on its own only outside a transaction, executescript() that does not commit an open one (4.0).
SQLITE_UTILS_NEEDED = (4, 0)


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def test_the_required_sqlite_utils_is_one_whose_transactions_hold():
    project = tomllib.loads((Path(__file__).resolve().parents[3] / "pyproject.toml").read_text())
    [requirement] = [d for d in project["project"]["dependencies"] if d.startswith("sqlite-utils")]
    lower = re.search(r">=\s*([\d.]+)", requirement)
    assert lower is not None and _version(lower.group(1)) >= SQLITE_UTILS_NEEDED, requirement
    assert _version(importlib.metadata.version("sqlite-utils")) >= SQLITE_UTILS_NEEDED


def schema_and_rows(db: Database) -> tuple[list[tuple], list[tuple], int]:
    schema = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()
    rows = db.execute("SELECT id, title FROM conversations ORDER BY id").fetchall()
    return schema, rows, current_version(db)


@pytest.mark.parametrize("failing", [
    "INSERT INTO nowhere VALUES (1);",  # after tables, an index, a trigger and an FTS table were made
    "UPDATE conversations SET pinned = 7;",  # after rows were changed: a CHECK constraint fails
])
def test_a_migration_failing_half_way_leaves_the_database_exactly_as_before(db_path, failing):
    with History.open(db_path) as history:
        history.create_conversation("kept as it was")
    db = Database(sqlite3.connect(db_path))
    before = schema_and_rows(db)
    half = Migration(LATEST_VERSION + 1, "half", f"""
        CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
        CREATE INDEX notes_text ON notes(text);
        CREATE TRIGGER notes_stamp AFTER INSERT ON notes BEGIN
            UPDATE conversations SET title = title || ';' WHERE id = 1;
        END;
        CREATE VIRTUAL TABLE notes_fts USING fts5(text, content='notes', content_rowid='id');
        INSERT INTO notes (text) VALUES ('one; two');
        UPDATE conversations SET title = 'changed';
        ALTER TABLE conversations ADD COLUMN colour TEXT;
        {failing}
        CREATE TABLE never (a);
        """)
    with pytest.raises(sqlite3.Error):
        apply_migrations(db, (*MIGRATIONS, half))
    assert schema_and_rows(db) == before
    assert not db.conn.in_transaction
    db.close()
    with History.open(db_path) as history:  # and the file still opens and works
        assert [c.title for c in history.list_conversations()] == ["kept as it was"]


def test_migration_2_makes_run_tokens_nullable_and_keeps_every_row(db_path):
    db_path.parent.mkdir(parents=True, exist_ok=True)
    old = Database(sqlite3.connect(db_path))
    old.execute("PRAGMA foreign_keys = ON")
    apply_migrations(old, MIGRATIONS[:1])
    old.execute("INSERT INTO conversations (id, title, created_at, updated_at) VALUES (1, 't', 0, 0)")
    old.execute("INSERT INTO messages (id, conversation_id, role, created_at, updated_at) VALUES (1, 1, 'user', 0, 0)")
    old.execute("INSERT INTO runs (id, conversation_id, user_message_id, started_at, input_tokens, output_tokens) "
                "VALUES ('r1', 1, 1, 0, 12, 7)")
    old.execute("INSERT INTO messages (id, conversation_id, parent_id, run_id, role, created_at, updated_at) "
                "VALUES (2, 1, 1, 'r1', 'assistant', 0, 0)")
    old.execute("INSERT INTO run_events (run_id, seq, type, iteration, ts, event) VALUES ('r1', 1, 'done', 1, 0, '{}')")
    old.conn.commit()
    assert apply_migrations(old, MIGRATIONS[:2]) == [2]
    assert old.execute("PRAGMA foreign_keys").fetchone() == (1,)
    old.close()
    with History.open(db_path) as history:
        (run,) = history.runs(1)
        assert (run.id, run.input_tokens, run.output_tokens, run.user_message_id) == ("r1", 12, 7, 1)
        assert history.run_events("r1") == [{}]
        assert history.message(2).run_id == "r1"
        history.db.execute("INSERT INTO runs (id, conversation_id, started_at) VALUES ('r2', 1, 0)")
        assert history.db.execute("SELECT input_tokens FROM runs WHERE id = 'r2'").fetchone() == (None,)
        assert history.db.execute("PRAGMA foreign_key_check").fetchall() == []
        assert history.db.execute("SELECT sql FROM sqlite_master WHERE sql LIKE '%runs_new%'").fetchall() == []
