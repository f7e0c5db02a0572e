"""Attachment rows of user messages (table ``message_attachments``, migration 4) and their files.

Files go into the content-addressed store (app/attachments/store.py) before the row that refers to them is
written, so a row never points at nothing Parley wrote. Reading a message back gives its attachments as the
parts that are sent (``message_parts``); a file removed from the store by hand becomes a text note instead of
an error, so the conversation can still be continued.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from app.attachments.store import AttachmentStore, MissingAttachmentError
from app.errors import describe_os_error
from app.storage.connection import Database
from app.storage.errors import StorageError
from app.storage.records import AttachmentRecord
from orchestration.messages import Attachment, DocumentPart, ImagePart

MISSING_FILE = "[The attached file {name} is no longer in Parley's data folder, so it could not be sent again.]"


def store_files(store: AttachmentStore, files: Iterable[bytes], database: Path) -> None:
    """Write each file to the store; StorageError (naming the folder) when the disk refuses."""
    try:
        for data in files:
            store.put(data)
    except OSError as exc:
        raise StorageError(f"could not save the attachments in {store.root} ({describe_os_error(exc)}). Nothing "
                           "was sent.", database) from exc


def insert_rows(db: Database, message_id: int, parts: Sequence[Attachment]) -> None:
    for position, part in enumerate(parts):
        if isinstance(part, ImagePart):
            values = ["image", part.name, part.media_type, part.sha256, len(part.data), part.width, part.height,
                      None, ""]
        else:
            values = ["document", part.name, part.media_type, part.sha256, part.size, None, None, part.text,
                      part.note]
        db.execute("INSERT INTO message_attachments (message_id, position, kind, name, media_type, sha256, size, "
                   "width, height, text, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [message_id, position, *values])


def record_from_row(row: dict[str, Any]) -> AttachmentRecord:
    return AttachmentRecord(id=row["id"], message_id=row["message_id"], position=row["position"], kind=row["kind"],
                            name=row["name"], media_type=row["media_type"], sha256=row["sha256"], size=row["size"],
                            width=row["width"], height=row["height"], text=row["text"], note=row["note"])


def rows_for(db: Database, message_ids: Sequence[int]) -> dict[int, list[dict[str, Any]]]:
    found: dict[int, list[dict[str, Any]]] = {}
    for start in range(0, len(message_ids), 500):  # keep under SQLite's bound-parameter limit
        chunk = list(message_ids[start:start + 500])
        marks = ", ".join("?" * len(chunk))
        for row in db.query(f"SELECT * FROM message_attachments WHERE message_id IN ({marks}) "
                            "ORDER BY message_id, position", chunk):
            found.setdefault(row["message_id"], []).append(row)
    return found


def addresses_of(db: Database, conversation_id: int) -> set[str]:
    return {row[0] for row in db.execute(
        "SELECT DISTINCT a.sha256 FROM message_attachments a JOIN messages m ON m.id = a.message_id "
        "WHERE m.conversation_id = ?", [conversation_id])}


def remove_unreferenced(db: Database, store: AttachmentStore, addresses: Iterable[str]) -> None:
    """Remove the files no message refers to any more (after their last conversation was deleted)."""
    for sha256 in addresses:
        used = db.execute("SELECT EXISTS (SELECT 1 FROM message_attachments WHERE sha256 = ?)", [sha256]).fetchone()
        if not used[0]:
            # a file that cannot be removed now is only disk space; it is never read without a row
            with contextlib.suppress(OSError, ValueError):
                store.remove(sha256)


def message_parts(store: AttachmentStore, records: Sequence[AttachmentRecord]) -> list[Attachment]:
    """The parts a stored user message sends again."""
    parts: list[Attachment] = []
    for record in records:
        if record.kind == "document":
            parts.append(DocumentPart(name=record.name, media_type=record.media_type, text=record.text or "",
                                      sha256=record.sha256, size=record.size, note=record.note))
            continue
        try:
            data = store.read(record.sha256)
        except (MissingAttachmentError, OSError, ValueError):
            parts.append(DocumentPart(name=record.name, media_type="text/plain", sha256=record.sha256,
                                      size=record.size, text=MISSING_FILE.format(name=record.name)))
            continue
        parts.append(ImagePart(name=record.name, media_type=record.media_type, data=data,
                               sha256=record.sha256, width=record.width or 1, height=record.height or 1))
    return parts
