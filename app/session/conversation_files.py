"""The window's File menu: export the open conversation as Markdown or JSON, import one from a JSON export.

The same formats and checks as ``parley export`` and ``parley import`` (``app/storage/markdown.py``,
``app/storage/exchange.py``): a file that is not a valid export is refused with what is wrong, and an export is
written atomically, so a failed write leaves no half file. The file dialogs open in the user's documents folder.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget

from app.file_write import write_file_atomically
from app.storage import History
from app.storage.exchange import export_json
from app.storage.markdown import export_markdown

# format -> (label, file extension, dialog filter)
EXPORT_FORMATS = {"markdown": ("Markdown", "md", "Markdown (*.md)"), "json": ("JSON", "json", "JSON (*.json)")}
FILE_NAME_CHARS = 60  # of the title, in a suggested file name


def documents_folder() -> Path:
    return Path(QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation) or Path.home())


def suggested_path(title: str, fmt: str) -> Path:
    """``<documents>/<title>.<ext>``, the title reduced to characters every file system accepts."""
    name = " ".join(re.sub(r"[^\w\-]+", " ", title).split())[:FILE_NAME_CHARS].strip() or "conversation"
    return documents_folder() / f"{name}.{EXPORT_FORMATS[fmt][1]}"


def choose_export_file(parent: QWidget | None, suggested: Path, fmt: str) -> str | None:
    label, _ext, name_filter = EXPORT_FORMATS[fmt]
    path, _ = QFileDialog.getSaveFileName(parent, f"Export the conversation as {label}", str(suggested),
                                          name_filter)
    return path or None


def choose_import_file(parent: QWidget | None) -> str | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Import a conversation", str(documents_folder()),
                                          "Parley export (*.json);;All files (*)")
    return path or None


def write_export(history: History, conversation_id: int, fmt: str, path: Path) -> None:
    """EnvironmentProblem (StorageError included) or LookupError when it cannot be read or written."""
    text = export_json(history, conversation_id) if fmt == "json" else export_markdown(history, conversation_id)
    write_file_atomically(path, text)

