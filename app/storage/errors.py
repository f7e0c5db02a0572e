"""SQLite failures that come from the user's environment, turned into messages naming the file and what to do.

A damaged file, a full disk, a lock held by another program or a read-only folder are not bugs: they become a
``StorageError``. Everything else (constraint violations, SQL mistakes) is re-raised unchanged, so bugs fail
loudly. Nothing here ever deletes or rewrites the database file.
"""

from __future__ import annotations

import contextlib
import functools
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Concatenate, ParamSpec, Protocol, TypeVar

from app.errors import EnvironmentProblem

P = ParamSpec("P")
R = TypeVar("R")

# Primary SQLite result codes (the low byte of extended codes) that describe the environment, not our SQL.
_ENVIRONMENT_CODES = frozenset({
    sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_IOERR,
    sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_NOTADB,
    sqlite3.SQLITE_PERM, sqlite3.SQLITE_NOMEM,
})


class StorageError(EnvironmentProblem):
    """The history database cannot be used right now; ``str()`` names the file and what to do."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.path = path


def _primary_code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def is_environment_error(exc: BaseException) -> bool:
    if not isinstance(exc, sqlite3.OperationalError | sqlite3.DatabaseError) or isinstance(
            exc, sqlite3.IntegrityError | sqlite3.ProgrammingError | sqlite3.InterfaceError):
        return False
    code = _primary_code(exc)
    if code is not None:
        return code in _ENVIRONMENT_CODES
    text = str(exc).lower()
    return any(marker in text for marker in ("locked", "disk", "not a database", "malformed", "readonly",
                                             "unable to open"))


def describe_storage_error(exc: sqlite3.Error, path: Path, action: str) -> str:
    code = _primary_code(exc)
    detail = str(exc)
    if code in (sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT) or "malformed" in detail or "not a database" in detail:
        return (f"could not {action}: the history database {path} is damaged or is not a Parley database "
                f"({detail}). Parley left the file untouched; move it aside or restore a backup to start again.")
    if code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or "locked" in detail:
        return (f"could not {action}: the history database {path} is locked by another program (is another "
                "Parley running?). Close it and try again.")
    if code == sqlite3.SQLITE_FULL or "full" in detail:
        return f"could not {action}: the disk holding {path} is full. Free some space and try again."
    if code in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_PERM) or "readonly" in detail:
        return (f"could not {action}: the history database {path} is read-only. Check the permissions of the "
                "file and its folder.")
    if code == sqlite3.SQLITE_CANTOPEN:
        return (f"could not {action}: the history database {path} cannot be opened. Check that its folder "
                "exists and is writable.")
    return f"could not {action}: the history database {path} gave an error ({detail})."


@contextlib.contextmanager
def storage_errors(path: Path, action: str) -> Iterator[None]:
    """Convert environment failures inside the block into StorageError; let every other error through."""
    try:
        yield
    except sqlite3.Error as exc:
        if is_environment_error(exc):
            raise StorageError(describe_storage_error(exc, path, action), path) from exc
        raise


class _HasPath(Protocol):
    path: Path


S = TypeVar("S", bound=_HasPath)


def guarded(action: str) -> Callable[[Callable[Concatenate[S, P], R]], Callable[Concatenate[S, P], R]]:
    """Method decorator: run the method inside ``storage_errors(self.path, action)``."""

    def decorate(method: Callable[Concatenate[S, P], R]) -> Callable[Concatenate[S, P], R]:
        @functools.wraps(method)
        def wrapper(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
            with storage_errors(self.path, action):
                return method(self, *args, **kwargs)

        return wrapper

    return decorate


__all__ = ["StorageError", "describe_storage_error", "guarded", "is_environment_error", "storage_errors"]
