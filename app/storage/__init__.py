"""Conversation history in SQLite: the database file (database.py, migrations.py, recovery.py), the repository
(history.py), continuing a conversation (replay.py), full-text search (search.py), recording runs
(run_recorder.py) and export/import (exchange.py, markdown.py). See docs/storage.md.
"""

from app.lean_imports import import_sqlite_utils

import_sqlite_utils()  # before any module below imports it

from app.storage.errors import StorageError  # noqa: E402
from app.storage.history import History, NotFoundError  # noqa: E402

__all__ = ["History", "NotFoundError", "StorageError"]
