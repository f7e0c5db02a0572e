"""Conversation history in SQLite: the database file (database.py, migrations.py, recovery.py), the repository
(history.py), continuing a conversation (replay.py), full-text search (search.py), recording runs
(run_recorder.py) and export/import (exchange.py, markdown.py). See docs/storage.md.
"""

from app.storage.errors import StorageError
from app.storage.history import History, NotFoundError

__all__ = ["History", "NotFoundError", "StorageError"]
