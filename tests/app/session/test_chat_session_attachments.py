"""Attachments in the real window, offscreen, with pytest-qt: the attach button, a pasted picture and a file
dropped on the chat become chips; a chip can be removed; a send refused before it starts (an image for a model
without vision) keeps the text and the attachments; a send to a vision model over loopback carries them, shows
their thumbnails in the sent message, clears the draft, and shows them again when the conversation is reopened.
"""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication, QImage
from PySide6.QtWidgets import QApplication, QToolButton

from app.paths import resolve_paths
from app.secrets import provider_entry
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.attachment_files import image_bytes, text_pdf
from tests.support.loopback import LoopbackServer
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_response
from widgets.message_attachments import attachment_url


def configure(server: LoopbackServer, *, vision: bool) -> None:
    preset = "openai" if vision else "custom"
    provider = ProviderSettings(id="p", preset=preset, base_url=server.url + "/v1", default_model="model-x")
    save_settings(Settings(providers=[provider], default_provider="p"), resolve_paths().settings)


def open_window(qtbot, tmp_path: Path):
    keyring = MemoryKeyring()
    keyring.set_password("parley", provider_entry("p"), "test-key-not-real")
    window, session = build_window(secrets=SecretStore(keyring), discover=False)
    qtbot.addWidget(window)
    window.show()
    photo, paper = tmp_path / "photo.png", tmp_path / "paper.pdf"
    photo.write_bytes(image_bytes(64, 48))
    paper.write_bytes(text_pdf("Otters hold hands"))
    session.draft.choose_files = lambda _folder: [str(photo)]
    return window, session, photo, paper


def drop_file(target, path: Path) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    QApplication.sendEvent(target, QDragEnterEvent(QPoint(5, 5), Qt.DropAction.CopyAction, mime,
                                                   Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier))
    QApplication.sendEvent(target, QDropEvent(QPointF(5, 5), Qt.DropAction.CopyAction, mime,
                                              Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier))


def attach_three(qtbot, window, paper: Path) -> None:
    qtbot.mouseClick(window.composer.findChild(QToolButton, "attachButton"), Qt.MouseButton.LeftButton)
    picture = QMimeData()
    picture.setImageData(QImage.fromData(image_bytes(20, 10, color=(0, 90, 200))))
    QGuiApplication.clipboard().setMimeData(picture)
    window.composer.input_widget().paste()
    drop_file(window.chat_view.viewport(), paper)


def names(window) -> list[str]:
    return [chip.name for chip in window.composer.attachments.chips()]


def test_attach_paste_drop_and_remove_make_chips(qtbot, parley_home, tmp_path, loopback):
    configure(loopback, vision=True)
    window, session, _, paper = open_window(qtbot, tmp_path)
    attach_three(qtbot, window, paper)
    assert names(window) == ["photo.png", "pasted image 1.png", "paper.pdf"]
    assert [chip.detail for chip in window.composer.attachments.chips()] == [
        "PNG · 64 × 48", "PNG · 20 × 10", "PDF · 1 KB"]
    second = window.composer.attachments.findChildren(QToolButton, "removeAttachment")[1]
    qtbot.mouseClick(second, Qt.MouseButton.LeftButton)
    assert names(window) == ["photo.png", "paper.pdf"]
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    drop_file(window.composer.input_widget(), empty)
    window.chat_view.flush()
    assert "empty.txt is empty; there is nothing to attach." in window.chat_view.toPlainText()
    assert names(window) == ["photo.png", "paper.pdf"]  # the others are kept
    session.history.close()


def test_an_image_for_a_model_without_vision_keeps_the_draft(qtbot, parley_home, tmp_path, loopback):
    configure(loopback, vision=False)
    window, session, _, paper = open_window(qtbot, tmp_path)
    attach_three(qtbot, window, paper)
    qtbot.keyClicks(window.composer.input_widget(), "What is this?")
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Return)
    window.chat_view.flush()
    assert "model-x (p) does not accept images; remove photo.png, pasted image 1.png" in \
        window.send_refusal.message()  # a refused send says why above the composer (test_send_refusal.py)
    assert window.composer.input_widget().toPlainText() == "What is this?"
    assert names(window) == ["photo.png", "pasted image 1.png", "paper.pdf"]
    assert loopback.count == 0 and session.history.list_conversations() == []
    session.history.close()


def test_a_sent_message_carries_its_attachments_and_shows_them(qtbot, qasync_loop, parley_home, tmp_path,
                                                              loopback):
    configure(loopback, vision=True)
    loopback.always("POST", "/v1/chat/completions", stream_response("Two otters."))
    window, session, photo, paper = open_window(qtbot, tmp_path)
    done = qasync_loop.create_future()
    session.controller.event_emitted.connect(
        lambda e: done.set_result(e) if e.type == "done" and not done.done() else None)
    qtbot.mouseClick(window.composer.findChild(QToolButton, "attachButton"), Qt.MouseButton.LeftButton)
    drop_file(window.chat_view.viewport(), paper)
    qtbot.keyClicks(window.composer.input_widget(), "What is this?")
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Return)
    assert qasync_loop.run_until_complete(asyncio.wait_for(done, 15)).finish_reason == "stop"

    content = loopback.requests[0].json["messages"][-1]["content"]
    assert content[0] == {"type": "image_url", "image_url": {
        "url": "data:image/png;base64," + base64.b64encode(photo.read_bytes()).decode()}}
    assert content[1]["text"].startswith("[Attached file: paper.pdf]\nOtters hold hands")
    assert names(window) == [] and window.composer.attachments.isHidden()
    assert session.draft.items() == []  # the draft is empty now; the sent message holds the thumbnail
    window.chat_view.flush()
    assert "Attached: paper.pdf · PDF · 1 KB" in window.chat_view.toPlainText()

    conversation_id = session.conversation_id
    session.new_chat()
    session.open_conversation(conversation_id)
    (user,) = [m for m in window.chat_view._history if m.role == "user"]
    assert [a.name for a in user.attachments] == ["photo.png", "paper.pdf"]
    assert window.chat_view.document().resource(2, attachment_url(user.attachments[0].key)) is not None
    viewer = window.chat_view.open_attachment(user.attachments[0].key)
    assert viewer is not None and viewer.picture.pixmap().width() == 64
    viewer.close()
    session.history.close()


@pytest.fixture
def loopback():
    with LoopbackServer() as server:
        yield server
