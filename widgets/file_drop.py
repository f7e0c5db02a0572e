"""Files dropped on a widget (the chat, the composer's input): an event filter that accepts drags carrying
local files or image data and reports the drop, so the widget needs no code of its own. Text drags are left
to the widget (the input keeps inserting dropped text)."""

from __future__ import annotations

from PySide6.QtCore import QBuffer, QByteArray, QEvent, QIODevice, QMimeData, QObject, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QImage


def local_files(mime: QMimeData) -> list[str]:
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile()] if mime.hasUrls() else []


def image_png(mime: QMimeData) -> bytes | None:
    """Image data on the clipboard or in a drag (a screenshot, a picture copied from a browser), as PNG."""
    if not mime.hasImage():
        return None
    image = mime.imageData()
    if not isinstance(image, QImage) or image.isNull():
        return None
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


class FileDropFilter(QObject):
    files_dropped = Signal(list)  # local paths, in order
    image_dropped = Signal(bytes)  # PNG bytes

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.DragEnter, QEvent.Type.DragMove) and isinstance(event, QDragEnterEvent | QDropEvent):
            mime = event.mimeData()
            if local_files(mime) or mime.hasImage():
                event.acceptProposedAction()
                return True
            return False
        if kind == QEvent.Type.Drop and isinstance(event, QDropEvent):
            mime = event.mimeData()
            files = local_files(mime)
            if files:
                event.acceptProposedAction()
                self.files_dropped.emit(files)
                return True
            image = image_png(mime)
            if image is not None:
                event.acceptProposedAction()
                self.image_dropped.emit(image)
                return True
        return False

    def watch(self, *widgets: QObject) -> None:
        for widget in widgets:
            if hasattr(widget, "setAcceptDrops"):
                widget.setAcceptDrops(True)  # type: ignore[attr-defined]
            widget.installEventFilter(self)
