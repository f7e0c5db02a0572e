"""The history's connection: the handful of operations the storage code needs, over the standard sqlite3 module.

Parley used sqlite-utils' ``Database`` for these, and nothing else of it: the schema is frozen SQL in numbered
migrations, queries are written by hand. Importing sqlite-utils also imports click, pluggy, python-dateutil and
sqlite-fts4 (about 5 MB and 60 ms on every start, issue 17, bench/RESULTS.md), so this module keeps the same
transaction rules with nothing but sqlite3:

- ``execute`` runs one statement; a write that opened a transaction of its own is committed at once, and one that
  fails is rolled back, so a statement outside ``atomic`` never leaves a transaction open to capture later
  writes. Inside an open transaction it is part of it.
- ``atomic`` is one transaction (``BEGIN`` ... ``COMMIT``, rolled back on any exception); nested, a savepoint.
- ``executescript`` inside an open transaction runs the statements one by one in it (the sqlite3 module's own
  ``executescript`` would commit the transaction first, so a migration failing half-way would leave its first
  half behind); outside one it runs the script as the sqlite3 module does.
- ``query`` returns each row as a dict by column name (a repeated name gets ``_2``, ``_3`` ...).
"""

from __future__ import annotations

import contextlib
import secrets
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Literal

# How Database.atomic starts a transaction: IMMEDIATE takes the write lock before the first read.
Begin = Literal["BEGIN", "BEGIN IMMEDIATE"]

Parameters = Sequence[Any] | Mapping[str, Any] | None

# Statements that open or close transactions themselves: execute() never commits after them.
TRANSACTION_WORDS = frozenset({"BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"})


def first_word(sql: str) -> str:
    """The statement's first keyword, upper-cased, after whitespace, empty statements and comments."""
    rest = sql.lstrip("\ufeff; \t\r\n")
    while rest.startswith(("--", "/*")):
        end = rest.find("\n") if rest.startswith("--") else rest.find("*/")
        if end < 0:
            return ""
        rest = rest[end + (1 if rest.startswith("--") else 2):].lstrip("\ufeff; \t\r\n")
    word = []
    for char in rest:
        if not (char.isalpha() or char == "_"):
            break
        word.append(char)
    return "".join(word).upper()


def statements(script: str) -> Iterator[str]:
    """The complete statements of ``script`` in order (SQLite's own test of a statement's end, so a ``;`` in a
    string or a trigger's body does not split it)."""
    start = 0
    for end, char in enumerate(script):
        if char == ";" and sqlite3.complete_statement(script[start:end + 1]):
            statement = script[start:end + 1].strip()
            if statement.strip(";").strip():
                yield statement
            start = end + 1
    tail = script[start:].strip()
    if tail:
        yield tail


def unique_names(names: Sequence[str]) -> list[str]:
    """Column names with repeats renamed ``name_2``, ``name_3`` ..., skipping names already taken."""
    taken = set(names)
    if len(taken) == len(names):
        return list(names)
    seen: set[str] = set()
    result = []
    for name in names:
        if name in seen:
            number = 2
            while f"{name}_{number}" in taken:
                number += 1
            name = f"{name}_{number}"
            taken.add(name)
        seen.add(name)
        result.append(name)
    return result


class Database:
    """One sqlite3 connection (``conn``) with the transaction rules above. Recursive triggers are on, as they
    were with sqlite-utils, so triggers that fire triggers behave the same."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.execute("PRAGMA recursive_triggers = ON")

    def close(self) -> None:
        self.conn.close()

    def is_open(self) -> bool:
        """False once closed (sqlite3 raises on any use of a closed connection, reading an attribute included)."""
        try:
            self.conn.total_changes  # noqa: B018 (read only to learn whether the connection is closed)
        except sqlite3.ProgrammingError:
            return False
        return True

    def execute(self, sql: str, parameters: Parameters = None) -> sqlite3.Cursor:
        was_open = self.conn.in_transaction
        try:
            cursor = self.conn.execute(sql) if parameters is None else self.conn.execute(sql, parameters)
        except Exception:
            if not was_open and self.conn.in_transaction:
                self.conn.execute("ROLLBACK")  # the failed statement's own transaction: nothing may stay open
            raise
        if (not was_open and self.conn.in_transaction and cursor.description is None
                and first_word(sql) not in TRANSACTION_WORDS):
            self.conn.execute("COMMIT")  # a write outside any transaction is committed by itself
        return cursor

    def query(self, sql: str, parameters: Parameters = None) -> Iterator[dict[str, Any]]:
        """The rows of a statement that returns rows, each a dict by column name, read as they are iterated."""
        cursor = self.execute(sql, parameters)
        if cursor.description is None:
            raise ValueError(f"query() is for statements that return rows; use execute() for {first_word(sql)}")
        names = unique_names([column[0] for column in cursor.description])
        return (dict(zip(names, row, strict=True)) for row in cursor)

    def executescript(self, script: str) -> sqlite3.Cursor:
        if not self.conn.in_transaction:
            return self.conn.executescript(script)
        cursor = self.conn.cursor()
        for statement in statements(script):
            cursor.execute(statement)
        return cursor

    def table_names(self) -> list[str]:
        return [row[0] for row in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]

    def rollback(self) -> None:
        """Roll back the open transaction, if one is still open (an error may already have ended it)."""
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")

    @contextlib.contextmanager
    def atomic(self, *, begin: Begin = "BEGIN") -> Iterator[Database]:
        """One transaction around the block, committed at its end and rolled back by any exception; inside an
        open transaction, a savepoint of it. ``begin`` is how a new transaction starts: ``BEGIN IMMEDIATE``
        takes the write lock first (app/storage/transactions.py says why)."""
        if self.conn.in_transaction:
            savepoint = f"parley_{secrets.token_hex(8)}"
            self.conn.execute(f"SAVEPOINT {savepoint}")
            try:
                yield self
            except BaseException:
                if self.conn.in_transaction:  # a RAISE(ROLLBACK) may have ended the whole transaction
                    self.conn.execute(f"ROLLBACK TO SAVEPOINT {savepoint}")
                    self.conn.execute(f"RELEASE SAVEPOINT {savepoint}")
                raise
            self.conn.execute(f"RELEASE SAVEPOINT {savepoint}")
            return
        self.conn.execute(begin)
        try:
            yield self
        except BaseException:
            self.rollback()
            raise
        try:
            self.conn.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise
