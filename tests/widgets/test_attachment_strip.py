"""The composer's attachment widgets with pytest-qt: the strip's chips (thumbnail, remove), the attach button,
pasting pictures and files, dropping files, sending with only attachments, and a sent message's thumbnail that
opens larger when clicked."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication, QLabel, QToolButton, QWidget

from tests.support.attachment_files import image_bytes
from widgets.attachment_strip import AttachmentChip, AttachmentStrip, short_name
from widgets.chat_view import ChatView
from widgets.composer import Composer
from widgets.file_drop import FileDropFilter
from widgets.message_attachments import AttachmentView, attachment_url


def chips() -> list[AttachmentChip]:
    return [AttachmentChip("a" * 64, "photo.png", "PNG · 8 × 6", image_bytes()),
            AttachmentChip("b" * 64, "notes.md", "MD · 1 KB")]


def test_chips_show_a_thumbnail_for_images_and_remove_on_request(qtbot):
    strip = AttachmentStrip()
    qtbot.addWidget(strip)
    assert strip.isHidden()
    strip.set_chips(chips())
    assert not strip.isHidden()
    assert len(strip.findChildren(QLabel, "attachmentThumbnail")) == 1
    labels = [label.text() for label in strip.findChildren(QLabel, "attachmentLabel")]
    assert labels == ["photo.png\nPNG · 8 × 6", "notes.md\nMD · 1 KB"]
    buttons = strip.findChildren(QToolButton, "removeAttachment")
    assert [b.accessibleName() for b in buttons] == ["Remove photo.png", "Remove notes.md"]
    with qtbot.waitSignal(strip.remove_requested) as removed:
        qtbot.mouseClick(buttons[1], Qt.MouseButton.LeftButton)
    assert removed.args == ["b" * 64]
    strip.set_chips([])
    assert strip.isHidden()


def test_a_long_name_is_shortened_in_the_middle():
    assert short_name("a" * 20 + ".png", limit=12) == "aaaaa…aa.png"


def test_the_attach_button_asks_for_files(qtbot):
    composer = Composer()
    qtbot.addWidget(composer)
    with qtbot.waitSignal(composer.attach_requested):
        qtbot.mouseClick(composer.findChild(QToolButton, "attachButton"), Qt.MouseButton.LeftButton)


def test_pasting_a_picture_or_files_attaches_and_text_still_pastes(qtbot):
    composer = Composer()
    qtbot.addWidget(composer)
    field = composer.input_widget()
    clipboard = QGuiApplication.clipboard()
    picture = QMimeData()
    picture.setImageData(QImage.fromData(image_bytes(10, 10)))
    clipboard.setMimeData(picture)
    with qtbot.waitSignal(field.image_pasted) as pasted:
        field.paste()
    assert QImage.fromData(pasted.args[0]).size().width() == 10
    files = QMimeData()
    files.setUrls([QUrl.fromLocalFile("/tmp/a.png"), QUrl.fromLocalFile("/tmp/b.pdf")])
    clipboard.setMimeData(files)
    with qtbot.waitSignal(field.files_pasted) as pasted_files:
        field.paste()
    assert pasted_files.args == [["/tmp/a.png", "/tmp/b.pdf"]]
    clipboard.setText("plain words")
    field.paste()
    assert field.toPlainText() == "plain words"


def test_with_attachments_an_empty_message_can_be_sent(qtbot):
    composer = Composer()
    qtbot.addWidget(composer)
    with qtbot.assertNotEmitted(composer.send_requested):
        qtbot.keyClick(composer.input_widget(), Qt.Key.Key_Return)
    composer.attachments.set_chips(chips())
    with qtbot.waitSignal(composer.send_requested) as sent:
        qtbot.keyClick(composer.input_widget(), Qt.Key.Key_Return)
    assert sent.args == [""]


def drop(target: QWidget, mime: QMimeData) -> None:
    """A drag entering ``target`` and dropped there (Qt delivers a drop only to the widget that took the drag)."""
    enter = QDragEnterEvent(QPoint(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                            Qt.KeyboardModifier.NoModifier)
    assert QApplication.sendEvent(target, enter) and enter.isAccepted()
    dropped = QDropEvent(QPointF(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                         Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(target, dropped)


def test_dropping_files_or_a_picture_on_a_watched_widget_reports_them(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    view.show()
    watcher = FileDropFilter()
    watcher.watch(view.viewport())
    assert view.viewport().acceptDrops()
    files = QMimeData()
    files.setUrls([QUrl.fromLocalFile("/tmp/photo.png")])
    with qtbot.waitSignal(watcher.files_dropped) as dropped:
        drop(view.viewport(), files)
    assert dropped.args == [["/tmp/photo.png"]]
    picture = QMimeData()
    picture.setImageData(QImage.fromData(image_bytes(6, 4)))
    with qtbot.waitSignal(watcher.image_dropped) as dropped_image:
        drop(view.viewport(), picture)
    assert QImage.fromData(dropped_image.args[0]).width() == 6


def test_a_sent_image_shows_as_a_thumbnail_that_opens_larger(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    big = image_bytes(640, 320)
    view.add_user_message("What is this?", [AttachmentView("c" * 64, "wide.png", "PNG · 640 × 320", big),
                                            AttachmentView("d" * 64, "paper.pdf", "PDF · 3 KB")])
    text = view.toPlainText()
    assert "Attached: paper.pdf · PDF · 3 KB" in text and "What is this?" in text
    resource = view.document().resource(2, attachment_url("c" * 64))  # 2: QTextDocument.ImageResource
    assert isinstance(resource, QImage) and (resource.width(), resource.height()) == (160, 80)
    cursor = view.document().find("\ufffc")  # the image's object character
    view.setTextCursor(cursor)
    rect = view.cursorRect(cursor)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(rect.left() - 10, rect.center().y()))
    qtbot.waitUntil(lambda: view.viewer is not None and view.viewer.isVisible())
    assert view.viewer.windowTitle() == "wide.png"
    assert view.viewer.picture.pixmap().width() == 640
    view.viewer.close()
    view.set_messages(list(view._history))  # drawn again from the stored messages: the thumbnail is still there
    assert view.document().resource(2, attachment_url("c" * 64)) is not None
