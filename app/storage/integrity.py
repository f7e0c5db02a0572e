"""Telling a damaged history database from a wrong id or a bug.

Another program (the sqlite3 shell, a sync tool, a disk error SQLite did not notice) can leave the file in a
state Parley never writes: a table, column or trigger missing, a conversation's row gone while its messages
remain, text where a number belongs. Each becomes a ``DamagedDatabaseError`` naming the file and what is wrong,
never a traceback and never "there is no conversation N" (which would blame the user's input).

What the schema should be is taken from the migrations themselves, applied once to an in-memory database, so
it can never disagree with them. Rows are checked against the column types and NOT NULL rules of that schema
as they are read, and times (columns ending in ``_at``) must be dates a calendar can show.

The line drawn: a value of a type Parley's own writes could produce by mistake (a number where text belongs,
text where a number belongs, NULL in a NOT NULL column, a time out of range) stays a ``DamagedDatabaseError``,
because it may be a bug in our writes and must fail loudly. A BLOB in a text column is never ours (every write
binds ``str``): it is the user's value, damaged by another program, so it affects only itself. It is shown as
marked text and counted (app/storage/damaged_values.py), and every other row stays readable.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from app.storage.connection import Database
from app.storage.damaged_values import note_damaged, shown_text
from app.storage.errors import StorageError
from app.storage.migrations import apply_migrations
from orchestration.bounded_json import loads_bounded

# The largest integer SQLite stores (64 bits), and the range of times (epoch milliseconds) a date can show:
# 0001-01-01 to the end of 9999.
SQLITE_MAX_INTEGER = 2**63 - 1
MIN_TIME_MS = -62_135_596_800_000
MAX_TIME_MS = 253_402_300_799_999
# Columns that hold JSON, per table.
JSON_COLUMNS: dict[str, tuple[str, ...]] = {"messages": ("usage",), "runs": ("error",), "tool_outputs": ("data",),
                                            "conversation_settings": ("tools",)}

R = TypeVar("R")


class DamagedDatabaseError(StorageError):
    """The history database is not in a state Parley writes; ``str()`` names the file and the damage."""

    def __init__(self, path: Path, damage: str) -> None:
        super().__init__(f"the history database {path} is damaged: {damage}. Parley left the file untouched; move it "
                         "aside or restore a backup to start again (or repair it with the sqlite3 shell).", path)
        self.damage = damage


@dataclass(frozen=True)
class Column:
    kind: type  # int or str (object: not checked)
    required: bool  # NOT NULL
    time: bool = False  # epoch milliseconds (the column's name ends in _at)

    def problem(self, name: str, value: Any) -> str | None:
        """Why ``value`` cannot be in this column, or None."""
        if value is None:
            return f"no value in {name}, which needs one" if self.required else None
        if self.kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            return f"{value!r} in {name}, where a whole number belongs"
        if self.kind is str and not isinstance(value, str):
            return f"{value!r} in {name}, where text belongs"
        if self.time and not MIN_TIME_MS <= value <= MAX_TIME_MS:
            return f"{value!r} in {name}, which is not a time"
        return None


@dataclass(frozen=True)
class Schema:
    tables: dict[str, dict[str, Column]]  # table -> column -> rule (virtual tables: columns without rules)
    triggers: frozenset[str]
    views: frozenset[str] = frozenset()


def _columns(db: sqlite3.Connection, table: str) -> dict[str, Column]:
    columns = {}
    for _cid, name, declared, notnull, _default, primary in db.execute(f'PRAGMA table_info("{table}")'):
        affinity = declared.upper()
        kind = int if "INT" in affinity else str if "TEXT" in affinity else object
        columns[name] = Column(kind, bool(notnull) or (primary and kind is int), kind is int and name.endswith("_at"))
    return columns


@functools.cache
def expected_schema() -> Schema:
    """The schema the migrations create, read from a fresh in-memory database."""
    db = Database(sqlite3.connect(":memory:"))
    try:
        apply_migrations(db)
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        triggers = frozenset(r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"))
        views = frozenset(r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'view'"))
        return Schema({table: _columns(db.conn, table) for table in tables}, triggers, views)
    finally:
        db.close()


def check_schema(db: Database, path: Path) -> None:
    """Raise DamagedDatabaseError when a table, column, trigger or view the migrations made is missing."""
    expected = expected_schema()
    found = {r[0]: r[1] for r in db.execute(
        "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'trigger', 'view')")}
    for table, columns in expected.tables.items():
        if found.get(table) != "table":
            raise DamagedDatabaseError(path, f"its table {table} is missing")
        present = {r[1] for r in db.execute(f'PRAGMA table_info("{table}")')}
        missing = [c for c in columns if c not in present]
        if missing:
            raise DamagedDatabaseError(path, f"its table {table} has no column {', '.join(missing)}")
    for trigger in sorted(expected.triggers):
        if found.get(trigger) != "trigger":
            raise DamagedDatabaseError(path, f"its trigger {trigger} (which keeps search in step) is missing")
    for view in sorted(expected.views):
        if found.get(view) != "view":
            raise DamagedDatabaseError(path, f"its view {view} (which search reads) is missing")


def check_value(path: Path, table: str, column: str, value: Any, row_id: object) -> Any:
    """``value`` as shown: as read when it fits its column, marked text for a BLOB in a text column (noted);
    anything else that does not fit raises DamagedDatabaseError."""
    rule = expected_schema().tables[table].get(column)
    if rule is not None and rule.kind is str and isinstance(value, bytes):
        note_damaged(path, table, row_id, column)
        return shown_text(value)
    problem = None if rule is None or rule.kind is object else rule.problem(column, value)
    if problem is not None:
        raise DamagedDatabaseError(path, f"{table} row {row_id} has {problem}")
    return value


def check_row(path: Path, table: str, row: MutableMapping[str, Any]) -> None:
    """Check each value of ``row`` that is a column of ``table`` (other keys, e.g. computed ones, are skipped).
    Runs for every row read, so the common case (the value has its column's exact type) is a type test. A BLOB
    in a text column is replaced in ``row`` by its marked text (``check_value``)."""
    rules = expected_schema().tables[table]
    for name, value in row.items():
        rule = rules.get(name)
        if rule is None or rule.kind is object:
            continue
        in_range = not rule.time or (isinstance(value, int) and MIN_TIME_MS <= value <= MAX_TIME_MS)
        if type(value) is rule.kind and in_range:
            continue
        if rule.kind is str and isinstance(value, bytes):
            row[name] = check_value(path, table, name, value, row.get("id"))
            continue
        problem = rule.problem(name, value)
        if problem is not None:
            raise DamagedDatabaseError(path, f"{table} row {row.get('id')} has {problem}")


def read_record(path: Path, table: str, row: MutableMapping[str, Any], build: Callable[[], R]) -> R:
    """``build()`` (a record from ``row``) once the row's values fit their columns; a record that still cannot
    be built (JSON that does not parse) is damage, named by its column."""
    check_row(path, table, row)
    try:
        return build()
    except (ValueError, TypeError) as exc:
        for column in JSON_COLUMNS.get(table, ()):
            try:
                loads_bounded(row[column], what=column) if row.get(column) is not None else None
            except (ValueError, TypeError) as bad:
                raise DamagedDatabaseError(path, f"{table} row {row.get('id')} has text in {column} that is not JSON "
                                                 f"({bad})") from exc
        raise DamagedDatabaseError(path, f"{table} row {row.get('id')} could not be read ({exc})") from exc


__all__ = ["MAX_TIME_MS", "SQLITE_MAX_INTEGER", "DamagedDatabaseError", "check_row", "check_schema", "check_value",
           "expected_schema", "read_record"]
