"""The attachments of the message being written, above the composer's input: one chip per file, an image
with its thumbnail, each with a button that removes it. The strip only shows what it is given and says which
chip the user wants removed; the app decides what an attachment is (app/session/window_attachments.py)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QWidget

from widgets.icons import icon
from widgets.safe_text import plain_label

THUMBNAIL_PX = 40  # the longer side of a chip's thumbnail
NAME_CHARS = 32  # a longer file name is shortened in the middle (the full name is the tooltip)


@dataclass(frozen=True)
class AttachmentChip:
    key: str  # the app's handle for this attachment (removal names it)
    name: str
    detail: str  # "PNG · 1024 × 768", "PDF · 12 KB"
    image: bytes | None = None  # encoded image bytes for the thumbnail; None: a file chip


def short_name(name: str, limit: int = NAME_CHARS) -> str:
    if len(name) <= limit:
        return name
    keep = (limit - 1) // 2
    return f"{name[:keep]}…{name[-(limit - 1 - keep):]}"


def thumbnail(data: bytes, edge: int) -> QPixmap | None:
    """The image scaled to fit ``edge`` pixels, or None when Qt cannot decode it."""
    image = QImage.fromData(data)
    if image.isNull():
        return None
    return QPixmap.fromImage(image.scaled(QSize(edge, edge), Qt.AspectRatioMode.KeepAspectRatio,
                                          Qt.TransformationMode.SmoothTransformation))


class _Chip(QFrame):
    def __init__(self, chip: AttachmentChip, strip: AttachmentStrip) -> None:
        super().__init__(strip)
        self.setObjectName("attachmentChip")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setToolTip(f"{chip.name}\n{chip.detail}")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 4, 4, 4)
        layout.setSpacing(6)
        picture = thumbnail(chip.image, THUMBNAIL_PX) if chip.image is not None else None
        if picture is not None:
            preview = QLabel(self)
            preview.setObjectName("attachmentThumbnail")
            preview.setPixmap(picture)
            layout.addWidget(preview)
        label = plain_label(f"{short_name(chip.name)}\n{chip.detail}", self)
        label.setObjectName("attachmentLabel")
        layout.addWidget(label)
        remove = QToolButton(self)
        remove.setObjectName("removeAttachment")
        remove.setIcon(icon("close"))
        remove.setIconSize(QSize(12, 12))
        remove.setAutoRaise(True)
        remove.setAccessibleName(f"Remove {chip.name}")
        remove.setToolTip(f"Remove {chip.name}")
        remove.clicked.connect(lambda: strip.remove_requested.emit(chip.key))
        layout.addWidget(remove)


class AttachmentStrip(QWidget):
    """Chips in a row; hidden when there are none."""

    remove_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("attachmentStrip")
        self.setAccessibleName("Attachments")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(6)
        self._layout.addStretch(1)
        self._chips: list[AttachmentChip] = []
        self.setVisible(False)

    def chips(self) -> list[AttachmentChip]:
        return list(self._chips)

    def set_chips(self, chips: list[AttachmentChip]) -> None:
        while self._layout.count() > 1:
            item = self._layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.hide()
                widget.setParent(None)  # gone from findChildren at once, not at the next event loop turn
                widget.deleteLater()
        for index, chip in enumerate(chips):
            self._layout.insertWidget(index, _Chip(chip, self))
        self._chips = list(chips)
        self.setVisible(bool(chips))
