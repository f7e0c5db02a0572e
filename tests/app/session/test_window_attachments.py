"""The window's view of stored attachments: images are read from the store only when shown, and an image whose
file is gone shows as a file line instead of failing."""

from __future__ import annotations

from pathlib import Path

from app.attachments import attachment_from_bytes
from app.session.window_attachments import describe, stored_views
from app.storage import History
from app.storage.run_recorder import RunRecorder
from tests.support.attachment_files import image_bytes, scanned_pdf
from widgets.chat_view import ChatView


def test_stored_images_are_read_only_when_shown(tmp_path: Path, qtbot, monkeypatch):
    photo = attachment_from_bytes("photo.png", image_bytes(30, 20))
    scan = attachment_from_bytes("scan.pdf", scanned_pdf(1))
    with History.open(tmp_path / "history.db") as history:
        conversation = history.create_conversation("Look")
        RunRecorder(history, conversation).begin("Look", attachments=[photo, scan])
        (record,) = history.branch(conversation)
        reads: list[str] = []
        read = history.attachments.read
        monkeypatch.setattr(history.attachments, "read", lambda sha: (reads.append(sha), read(sha))[1])
        views = stored_views(history.attachments, record)
        assert reads == []
        assert [(v.name, v.detail) for v in views] == [("photo.png", "PNG · 30 × 20"), ("scan.pdf", "PDF · 1 KB")]
        assert views[0].image_bytes() == photo.stored and reads == [photo.part.sha256]
        history.attachments.path(photo.part.sha256).unlink()
        assert views[0].image_bytes() is None
        view = ChatView()
        qtbot.addWidget(view)
        view.add_user_message("Look", views)  # a missing image shows as a line, and does not open
        assert "Attached: photo.png · PNG · 30 × 20" in view.toPlainText()
        assert view.open_attachment(photo.part.sha256) is None


def test_a_chip_says_when_a_pdf_has_no_text_layer_or_was_cut():
    assert describe(attachment_from_bytes("scan.pdf", scanned_pdf(2))).endswith("· no text layer")
    long_text = attachment_from_bytes("long.txt", b"x" * 200_000)
    assert describe(long_text) == "TXT · 195 KB · cut"
