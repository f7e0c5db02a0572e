"""app/storage/connection.py keeps the transaction rules the storage code relies on (they were sqlite-utils'
before issue 17): a lone write commits itself, a failed one leaves no transaction open, ``atomic`` commits or
rolls back whole (a savepoint when nested), ``executescript`` inside a transaction does not commit it, and
``query`` gives rows as dicts. Each is checked on a real file, a second connection reading what was committed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from app.storage.connection import Database, first_word, statements, unique_names


@pytest.fixture
def files(tmp_path: Path):
    path = tmp_path / "t.db"
    db = Database(sqlite3.connect(path))
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)")
    other = sqlite3.connect(path)
    yield db, other
    other.close()
    db.close()


def committed(other: sqlite3.Connection) -> list[str]:
    return [row[0] for row in other.execute("SELECT v FROM t ORDER BY id")]


def test_a_write_outside_a_transaction_is_committed_at_once(files):
    db, other = files
    db.execute("INSERT INTO t (v) VALUES (?)", ["one"])
    assert not db.conn.in_transaction
    assert committed(other) == ["one"]


def test_a_failed_write_leaves_no_transaction_open(files):
    db, other = files
    with pytest.raises(sqlite3.IntegrityError):
        db.execute("INSERT INTO t (v) VALUES (NULL)")
    assert not db.conn.in_transaction
    db.execute("INSERT INTO t (v) VALUES ('after')")
    assert committed(other) == ["after"]


def test_atomic_commits_whole_or_not_at_all(files):
    db, other = files
    with db.atomic():
        db.execute("INSERT INTO t (v) VALUES ('a')")
        db.execute("INSERT INTO t (v) VALUES ('b')")
        assert committed(other) == []  # nothing is visible before the end
    assert committed(other) == ["a", "b"]
    with pytest.raises(RuntimeError), db.atomic():
        db.execute("INSERT INTO t (v) VALUES ('c')")
        raise RuntimeError("stop")
    assert not db.conn.in_transaction
    assert committed(other) == ["a", "b"]


def test_a_nested_atomic_is_a_savepoint_of_the_outer_one(files):
    db, other = files
    with db.atomic():
        db.execute("INSERT INTO t (v) VALUES ('outer')")
        with pytest.raises(RuntimeError), db.atomic():
            db.execute("INSERT INTO t (v) VALUES ('inner')")
            raise RuntimeError("only the inner block")
        assert db.conn.in_transaction
    assert committed(other) == ["outer"]


def test_a_statement_inside_begin_immediate_is_not_committed_by_itself(files):
    db, other = files
    db.execute("BEGIN IMMEDIATE")
    db.execute("INSERT INTO t (v) VALUES ('x')")
    assert db.conn.in_transaction
    db.rollback()
    assert committed(other) == []


def test_executescript_inside_a_transaction_keeps_it_open_so_a_failure_undoes_all_of_it(files):
    db, other = files
    db.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.Error):
        db.executescript("""
            CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);
            CREATE TRIGGER stamp AFTER INSERT ON notes BEGIN INSERT INTO t (v) VALUES ('from; trigger'); END;
            INSERT INTO notes (text) VALUES ('a; b');
            INSERT INTO nowhere VALUES (1);
            """)
    assert db.conn.in_transaction
    db.rollback()
    assert "notes" not in db.table_names()
    assert committed(other) == []


def test_executescript_outside_a_transaction_runs_the_script(files):
    db, other = files
    db.executescript("INSERT INTO t (v) VALUES ('s1'); INSERT INTO t (v) VALUES ('s2');")
    assert committed(other) == ["s1", "s2"]


def test_query_gives_dicts_and_renames_repeated_columns(files):
    db, _ = files
    db.execute("INSERT INTO t (v) VALUES ('q')")
    assert list(db.query("SELECT id, v, v FROM t WHERE v = ?", ["q"])) == [{"id": 1, "v": "q", "v_2": "q"}]
    with pytest.raises(ValueError, match="return rows"):
        db.query("UPDATE t SET v = 'r'")


def test_the_helpers():
    assert first_word("  -- a comment\n /* another */ begin immediate") == "BEGIN"
    assert first_word(";\ufeffinsert into t") == "INSERT"
    assert first_word("-- only a comment") == ""
    assert list(statements("CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT ';'; END; SELECT 1;  SELECT 2")) == [
        "CREATE TRIGGER x AFTER INSERT ON t BEGIN SELECT ';'; END;", "SELECT 1;", "SELECT 2"]
    assert unique_names(["a", "a", "a_2", "b"]) == ["a", "a_3", "a_2", "b"]


def test_recursive_triggers_are_on_as_before():
    db = Database(sqlite3.connect(":memory:"))
    assert db.execute("PRAGMA recursive_triggers").fetchone() == (1,)
    db.close()
