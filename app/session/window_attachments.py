"""The attachments of the message being written in the window: the attach button's file dialog, files and
pictures pasted into the input or dropped on the chat or the input, each prepared by app/attachments (the same
rules as ``parley chat --attach``) and shown as a removable chip. A file that cannot be attached is refused at
once with its reason, and the other attachments and the draft stay. The draft's attachments are cleared only
once a send has started, so a send that fails (no provider, an image for a model without vision) keeps them.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from app.attachments import AttachmentError, PreparedAttachment, attachment_from_bytes, load_attachment
from app.attachments.limits import MAX_ATTACHMENTS
from app.attachments.loader import check_total
from app.attachments.store import AttachmentStore, MissingAttachmentError
from app.storage.records import MessageRecord
from orchestration.messages import ImagePart
from widgets.attachment_strip import AttachmentChip
from widgets.composer import Composer
from widgets.file_drop import FileDropFilter
from widgets.message_attachments import AttachmentView

FILE_FILTER = ("Images and documents (*.png *.jpg *.jpeg *.webp *.gif *.pdf *.txt *.md *.markdown *.csv *.tsv "
               "*.json *.jsonl *.py *.js *.ts *.html *.css *.xml *.yaml *.yml *.toml *.c *.h *.cpp *.rs *.go "
               "*.java *.sh *.sql *.log);;All files (*)")
PASTED_NAME = "pasted image {n}.png"


def _size(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB" if size >= 1024 * 1024 else f"{max(size // 1024, 1)} KB"


def kind_label(media_type: str, name: str) -> str:
    """The one kind label of an attachment, for the composer's chip, the sent message and the edit box alike:
    an image's format (PNG), PDF, else the file's extension (TXT, PY), else "Text"."""
    if media_type.startswith("image/"):
        return media_type.split("/")[1].upper()
    if media_type == "application/pdf":
        return "PDF"
    return Path(name).suffix.lstrip(".").upper() or "Text"


def describe(prepared: PreparedAttachment) -> str:
    """The chip's detail line: type and size, and a note when the text was cut or a PDF has no text."""
    part = prepared.part
    kind = kind_label(part.media_type, part.name)
    if isinstance(part, ImagePart):
        return f"{kind} · {part.width} × {part.height}"
    detail = f"{kind} · {_size(part.size)}"
    if part.note.startswith("[This PDF has no text layer"):
        return f"{detail} · no text layer"
    return f"{detail} · cut" if part.note else detail


def view_of(prepared: PreparedAttachment) -> AttachmentView:
    part = prepared.part
    return AttachmentView(part.sha256, part.name, describe(prepared),
                          part.data if isinstance(part, ImagePart) else None)


def ask_for_files(parent: QWidget, folder: str) -> list[str]:
    """The attach dialog, opened in ``folder``."""
    paths, _ = QFileDialog.getOpenFileNames(parent, "Attach files", folder, FILE_FILTER)
    return paths


class DraftAttachments:
    def __init__(self, composer: Composer, drop_targets: list[QWidget], report: Callable[[str], None], *,
                 choose_files: Callable[[str], list[str]] | None = None) -> None:
        self.composer = composer
        self.report = report
        self.choose_files = choose_files or (lambda folder: ask_for_files(composer, folder))
        self._folder: Path | None = None  # the folder last attached from, for this session's attach dialog
        self._items: list[PreparedAttachment] = []
        self._pasted = 0
        composer.attach_requested.connect(self.choose)
        composer.attachments.remove_requested.connect(self.remove)
        composer.input_widget().files_pasted.connect(self.add_paths)
        composer.input_widget().image_pasted.connect(self.add_image)
        self.drop = FileDropFilter(composer)
        self.drop.files_dropped.connect(self.add_paths)
        self.drop.image_dropped.connect(self.add_image)
        self.drop.watch(*drop_targets)

    def items(self) -> list[PreparedAttachment]:
        return list(self._items)

    def views(self) -> list[AttachmentView]:
        return [view_of(item) for item in self._items]

    def attach_folder(self) -> str:
        """Where the attach dialog opens: the folder last attached from in this session, else the user's home
        (not the process's working folder, which is wherever Parley was started from)."""
        return str(self._folder if self._folder is not None and self._folder.is_dir() else Path.home())

    def choose(self) -> None:
        self.add_paths(self.choose_files(self.attach_folder()))

    def add_paths(self, paths: list[str]) -> None:
        problems = []
        for path in paths:
            try:
                self._add(load_attachment(Path(path)))
            except AttachmentError as problem:
                problems.append(str(problem))
            else:
                self._folder = Path(path).parent
        self._show(problems)

    def add_image(self, data: bytes) -> None:
        self._pasted += 1
        try:
            self._add(attachment_from_bytes(PASTED_NAME.format(n=self._pasted), data))
        except AttachmentError as problem:
            self._show([str(problem)])
            return
        self._show([])

    def _add(self, prepared: PreparedAttachment) -> None:
        if any(item.part.sha256 == prepared.part.sha256 for item in self._items):
            return  # the same file twice is attached once
        if len(self._items) >= MAX_ATTACHMENTS:
            raise AttachmentError("too_many", prepared.name, (
                f"{prepared.name} was not attached: one message may carry at most {MAX_ATTACHMENTS} attachments."))
        check_total([*self._items, prepared])
        self._items.append(prepared)

    def _show(self, problems: list[str]) -> None:
        self.composer.attachments.set_chips([
            AttachmentChip(item.part.sha256, item.name, describe(item),
                           item.part.data if isinstance(item.part, ImagePart) else None) for item in self._items])
        if problems:
            self.report(" ".join(problems))

    def remove(self, key: str) -> None:
        self._items = [item for item in self._items if item.part.sha256 != key]
        self._show([])

    def clear(self) -> None:
        self._items = []
        self._show([])

    def restore(self, items: list[PreparedAttachment]) -> None:
        """Put back the attachments of a send that failed, before any added since."""
        kept = [item for item in self._items if all(item.part.sha256 != i.part.sha256 for i in items)]
        self._items = [*items, *kept][:MAX_ATTACHMENTS]
        self._show([])


def stored_views(store: AttachmentStore, record: MessageRecord) -> list[AttachmentView]:
    """A stored user message's attachments for the chat view. Images are read from the store only when shown
    (a long history renders its last page first); an image whose file is gone shows as a file line."""
    views = []
    for attachment in record.attachments:
        kind = kind_label(attachment.media_type, attachment.name)
        if attachment.kind == "image":
            detail = f"{kind} · {attachment.width} × {attachment.height}"
            views.append(AttachmentView(attachment.sha256, attachment.name, detail,
                                        functools.partial(_stored_image, store, attachment.sha256)))
        else:
            views.append(AttachmentView(attachment.sha256, attachment.name, f"{kind} · {_size(attachment.size)}"))
    return views


def _stored_image(store: AttachmentStore, sha256: str) -> bytes | None:
    try:
        return store.read(sha256)
    except (MissingAttachmentError, OSError, ValueError):
        return None
