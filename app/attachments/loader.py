"""Reading a file (or pasted bytes) into an attachment ready to send, or refusing it with a clear reason.

The kind is decided by the bytes first (image and PDF signatures), then by the name: a file named like an
image that is not one is damaged, anything else must be text. Every refusal is an ``AttachmentError`` naming
the file, raised before anything is saved or sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

from app.attachments.errors import AttachmentError
from app.attachments.limits import MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS, MAX_MESSAGE_BYTES
from app.attachments.names import fit_name
from app.errors import describe_os_error
from orchestration.messages import Attachment, ImagePart

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".gif")
IMAGE_MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")


def looks_like_image(data: bytes) -> bool:
    return data.startswith(IMAGE_MAGIC) or (data[:4] == b"RIFF" and data[8:12] == b"WEBP")


@dataclass(frozen=True)
class PreparedAttachment:
    """An attachment as sent (``part``) and the bytes the store keeps for it (``stored``: an image as sent, a
    document's original file), whose SHA-256 is ``part.sha256``."""

    part: Attachment
    stored: bytes

    @property
    def name(self) -> str:
        return self.part.name

    @property
    def sent_bytes(self) -> int:
        """About what it adds to a request: an image's bytes, a document's text in UTF-8."""
        part = self.part
        return len(part.data) if isinstance(part, ImagePart) else len(part.text.encode("utf-8"))


def _size_text(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB" if size >= 1024 * 1024 else f"{size:,} bytes"


def _too_large(name: str, size: int) -> AttachmentError:
    return AttachmentError("too_large", name, (
        f"{name} is {_size_text(size)}; attachments may be at most {MAX_ATTACHMENT_BYTES // (1024 * 1024)} MB."))


def attachment_from_bytes(name: str, data: bytes) -> PreparedAttachment:
    """An attachment from bytes already read (a file, or an image pasted from the clipboard); a name longer than
    MAX_ATTACHMENT_NAME_CHARS is cut to its start and extension."""
    name = fit_name(name)
    if not data:
        raise AttachmentError("empty", name, f"{name} is empty; there is nothing to attach.")
    if len(data) > MAX_ATTACHMENT_BYTES:
        raise _too_large(name, len(data))
    # Pillow and pypdf are imported on the first attachment only: every other command starts without them.
    if looks_like_image(data) or PurePath(name).suffix.lower() in IMAGE_SUFFIXES:
        from app.attachments.images import prepare_image
        image = prepare_image(name, data)
        return PreparedAttachment(image, image.data)
    from app.attachments.documents import prepare_document
    return PreparedAttachment(prepare_document(name, data), data)


def load_attachment(path: Path) -> PreparedAttachment:
    """Read ``path`` (at most MAX_ATTACHMENT_BYTES) and prepare it."""
    name = path.name or str(path)
    try:
        if path.is_dir():
            raise AttachmentError("unreadable", name, f"{path} is a folder; attach the files in it one by one.")
        size = path.stat().st_size
        if size > MAX_ATTACHMENT_BYTES:
            raise _too_large(name, size)
        with path.open("rb") as handle:
            data = handle.read(MAX_ATTACHMENT_BYTES + 1)  # the file may grow after stat
    except OSError as exc:
        raise AttachmentError("unreadable", name, f"could not read {path} ({describe_os_error(exc)}).") from None
    return attachment_from_bytes(name, data)


def check_count(count: int) -> None:
    if count > MAX_ATTACHMENTS:
        raise AttachmentError("too_many", "", (
            f"{count} attachments; one message may carry at most {MAX_ATTACHMENTS}."))


def check_total(attachments: Sequence[PreparedAttachment]) -> None:
    """All of one message's attachments together must stay under MAX_MESSAGE_BYTES as sent."""
    total = sum(a.sent_bytes for a in attachments)
    if total > MAX_MESSAGE_BYTES:
        raise AttachmentError("too_large", attachments[-1].name, (
            f"together the attachments are {_size_text(total)} as sent; one message may carry at most "
            f"{MAX_MESSAGE_BYTES // (1024 * 1024)} MB. {attachments[-1].name} was not attached."))


def load_attachments(paths: Sequence[Path]) -> list[PreparedAttachment]:
    """Every file prepared, in order; the first refusal is raised (nothing is kept half-way)."""
    check_count(len(paths))
    attachments = [load_attachment(path) for path in paths]
    for end in range(1, len(attachments) + 1):
        check_total(attachments[:end])
    return attachments
