"""Text that SQLite can store: lone surrogates become U+FFFD before any value is bound.

A Python string may hold a lone surrogate (a ``\\ud800`` escape in a provider's JSON or an import file, bytes
decoded with ``surrogateescape``). SQLite stores UTF-8, which has no encoding for one, so the driver refuses the
whole statement with UnicodeEncodeError and the write (a user's message, an answer) would be lost. Every
connection to the history is a ``SafeTextConnection``, which replaces them in every bound parameter, so no
write path can forget to.

The other way round, stored text that is not UTF-8 (a damaged or hand-edited database, a row another program
wrote with ``CAST(x'..' AS TEXT)``) makes the driver refuse the whole query with ``OperationalError: Could not
decode to UTF-8 column``: one bad byte would hide a whole conversation, its title in the list, its export and its
run trace. A ``SafeTextConnection`` reads text with a replacing decoder instead: U+FFFD for each bad byte, the
rest as stored, for every reader at once (the cost is one Python call per text value read, measured in
bench/lenient_text.py).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

from orchestration.unicode_text import replace_lone_surrogates as storable

__all__ = ["SafeTextConnection", "readable_text", "storable", "storable_parameters"]


def readable_text(data: bytes) -> str:
    """Stored text as a string: valid UTF-8 as it is, each byte that is not replaced by U+FFFD."""
    return data.decode("utf-8", "replace")


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
    """A connection whose ``execute`` and ``executemany`` bind only storable text, and which reads text that is
    not UTF-8 with U+FFFD in place of each bad byte."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.text_factory = readable_text

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return super().execute(sql, storable_parameters(parameters))

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> sqlite3.Cursor:
        return super().executemany(sql, (storable_parameters(p) for p in seq_of_parameters))
