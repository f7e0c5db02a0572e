"""Attachments in a sent message: images as thumbnails that open larger when clicked, other files as a line
with their name and details. The image bytes come from the app (the view never reads a file); each thumbnail
is added to the document as a resource under ``parley-attachment:<key>``, which is also its link."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import (
    QColor,
    QGuiApplication,
    QImage,
    QPixmap,
    QTextCharFormat,
    QTextCursor,
    QTextDocument,
    QTextImageFormat,
)
from PySide6.QtWidgets import QDialog, QLabel, QScrollArea, QVBoxLayout, QWidget

from widgets.safe_text import visible_controls

SCHEME = "parley-attachment"
SENT_THUMBNAIL_PX = 160  # the longer side of an image in a sent message
VIEWER_SCREEN_SHARE = 0.85  # the viewer opens at most this share of the screen, the image scaled to fit
FILE_COLOUR = "#7a7f87"


@dataclass(frozen=True)
class AttachmentView:
    key: str  # unique in the conversation (the file's SHA-256)
    name: str
    detail: str
    # the encoded image (or what reads it when first shown: a long history reads only the pages it shows),
    # for the thumbnail and the viewer; None: a file line
    image: bytes | Callable[[], bytes | None] | None = None

    def image_bytes(self) -> bytes | None:
        return self.image() if callable(self.image) else self.image


def attachment_url(key: str) -> QUrl:
    return QUrl(f"{SCHEME}:{key}")


def insert_attachments(document: QTextDocument, cursor: QTextCursor, views: list[AttachmentView]) -> None:
    """Thumbnails in one row, then one line per other file, at ``cursor`` (a fresh block)."""
    images = [(v, QImage.fromData(v.image_bytes() or b"")) for v in views if v.image is not None]
    files = [v for v in views if v.image is None]
    first = True
    for view, image in images:
        if image.isNull():
            files.append(view)
            continue
        shown = image.scaled(QSize(SENT_THUMBNAIL_PX, SENT_THUMBNAIL_PX), Qt.AspectRatioMode.KeepAspectRatio,
                             Qt.TransformationMode.SmoothTransformation)
        url = attachment_url(view.key)
        document.addResource(QTextDocument.ResourceType.ImageResource.value, url, shown)
        picture = QTextImageFormat()
        picture.setName(url.toString())
        picture.setWidth(shown.width())
        picture.setHeight(shown.height())
        picture.setAnchor(True)
        picture.setAnchorHref(url.toString())
        picture.setToolTip(f"{view.name} · {view.detail} (click to enlarge)")
        if not first:
            cursor.insertText("  ")
        cursor.insertImage(picture)
        first = False
    label = QTextCharFormat()
    label.setForeground(QColor(FILE_COLOUR))
    for view in files:
        if not first:
            cursor.insertBlock()
        cursor.insertText(visible_controls(f"Attached: {view.name} · {view.detail}"), label)
        first = False


class ImageViewer(QDialog):
    """An attached image, as large as fits the screen; Esc closes it."""

    def __init__(self, view: AttachmentView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("imageViewer")
        self.setWindowTitle(view.name)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        image = QImage.fromData(view.image_bytes() or b"")
        screen = QGuiApplication.primaryScreen()
        room = screen.availableSize() * VIEWER_SCREEN_SHARE if screen is not None else QSize(1024, 768)
        if image.width() > room.width() or image.height() > room.height():
            image = image.scaled(room, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
        self.picture = QLabel(self)
        self.picture.setObjectName("viewerImage")
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setPixmap(QPixmap.fromImage(image))
        self.picture.setAccessibleName(view.name)
        scroll = QScrollArea(self)
        scroll.setWidget(self.picture)
        scroll.setWidgetResizable(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)
        self.resize(image.width() + 24, image.height() + 24)
