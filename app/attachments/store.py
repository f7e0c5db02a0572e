"""Attachments kept once by content under the data folder: ``<data>/attachments/<first 2 hex>/<sha256>``.

Messages refer to a file by its SHA-256 (table ``message_attachments``), so the same picture attached ten
times is stored once. A file is written to a temporary name in its folder, flushed and renamed, so a crash
never leaves half a file under a real address. Deleting the last conversation that refers to a file removes
it (``History.delete``). Addresses are checked to be 64 hex digits before they touch the file system, so an
imported file cannot name a path outside the store.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
from pathlib import Path

FOLDER_NAME = "attachments"
_ADDRESS = re.compile(r"[0-9a-f]{64}")


class MissingAttachmentError(LookupError):
    """No stored file for an address (removed by hand, or never written)."""


def valid_address(sha256: str) -> bool:
    return bool(_ADDRESS.fullmatch(sha256))


class AttachmentStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def beside(cls, database: Path) -> AttachmentStore:
        """The store of the history database at ``database`` (in the same data folder)."""
        return cls(database.parent / FOLDER_NAME)

    def path(self, sha256: str) -> Path:
        if not valid_address(sha256):
            raise ValueError(f"{sha256!r} is not an attachment address (64 lowercase hex digits)")
        return self.root / sha256[:2] / sha256

    def put(self, data: bytes) -> str:
        """Store ``data`` (once) and return its address. Raises OSError when it cannot be written."""
        sha256 = hashlib.sha256(data).hexdigest()
        target = self.path(sha256)
        if target.is_file() and target.stat().st_size == len(data):
            return sha256
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".part-")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
        return sha256

    def read(self, sha256: str) -> bytes:
        try:
            return self.path(sha256).read_bytes()
        except FileNotFoundError:
            raise MissingAttachmentError(f"attachment {sha256} is not in {self.root}") from None

    def remove(self, sha256: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path(sha256).unlink()
        with contextlib.suppress(OSError):
            self.path(sha256).parent.rmdir()  # only when empty
