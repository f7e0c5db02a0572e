"""Text that SQLite can store: lone surrogates become U+FFFD before any value is bound.

A Python string may hold a lone surrogate (a ``\\ud800`` escape in a provider's JSON or an import file, bytes
decoded with ``surrogateescape``). SQLite stores UTF-8, which has no encoding for one, so the driver refuses the
whole statement with UnicodeEncodeError and the write (a user's message, an answer) would be lost. Every
connection to the history is a ``SafeTextConnection``, which replaces them in every bound parameter, so no
write path can forget to.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

from orchestration.unicode_text import replace_lone_surrogates as storable

__all__ = ["SafeTextConnection", "storable", "storable_parameters"]


def _storable_value(value: Any) -> Any:
    return storable(value) if isinstance(value, str) else value


def storable_parameters(parameters: Any) -> Any:
    """Bound parameters (a sequence or a mapping) with every string made storable."""
    if isinstance(parameters, Mapping):
        return {key: _storable_value(value) for key, value in parameters.items()}
    if isinstance(parameters, list | tuple):
        return [_storable_value(value) for value in parameters]
    return parameters


class SafeTextConnection(sqlite3.Connection):
    """A connection whose ``execute`` and ``executemany`` bind only storable text."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return super().execute(sql, storable_parameters(parameters))

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> sqlite3.Cursor:
        return super().executemany(sql, (storable_parameters(p) for p in seq_of_parameters))
