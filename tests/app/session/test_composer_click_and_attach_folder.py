"""The composer's surroundings and the attach dialog (user pass 2026-11-27): a click on the composer's frame
beside an attachment chip puts the keyboard in the text field, and the attach dialog opens in the folder last
attached from (else the user's home), not in the process's working folder. The real window (pytest-qt, qasync)
over a real SQLite file, and the real QFileDialog."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QFrame

from tests.support.window_actions import (
    close_window,
    model_fixture,  # noqa: F401 (the model fixture)
    open_window,
)


@pytest.fixture
def app(qtbot, qasync_loop, model):
    window, session = open_window(qtbot, qasync_loop)
    yield window, session
    close_window(qasync_loop, session)


def test_a_click_beside_a_chip_or_on_the_frame_focuses_the_field(qtbot, app, tmp_path: Path):
    window, session = app
    notes = tmp_path / "notes.txt"
    notes.write_text("Otters\n")
    session.draft.add_paths([str(notes)])
    strip = window.composer.attachments
    assert strip.isVisible() and len(strip.chips()) == 1
    frame = window.composer.findChild(QFrame, "composerFrame")
    field = window.composer.input_widget()

    window.chat_view.setFocus()
    assert not field.hasFocus()
    qtbot.mouseClick(strip, Qt.MouseButton.LeftButton, pos=QPoint(strip.width() - 4, strip.height() // 2))
    assert field.hasFocus()

    window.chat_view.setFocus()
    qtbot.mouseClick(frame, Qt.MouseButton.LeftButton, pos=QPoint(3, 3))  # the frame's padding
    assert field.hasFocus()
    qtbot.keyClicks(field, "hello")
    assert field.toPlainText() == "hello"


def test_the_attach_dialog_opens_in_the_folder_last_attached_from(qtbot, app, tmp_path: Path, monkeypatch):
    window, _session = app
    elsewhere = tmp_path / "started-here"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the process's working folder
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "otters.txt").write_text("Otters hold hands\n")
    opened_in: list[str] = []

    def answer_the_dialog(pick: Path | None) -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QFileDialog):
            QTimer.singleShot(20, lambda: answer_the_dialog(pick))
            return
        opened_in.append(Path(dialog.directory().absolutePath()).as_posix())
        if pick is None:
            dialog.reject()
        else:
            dialog.selectFile(str(pick))
            dialog.accept()

    monkeypatch.setattr(QFileDialog, "getOpenFileNames", _widget_dialog)
    QTimer.singleShot(0, lambda: answer_the_dialog(folder / "otters.txt"))
    window.composer.attach_requested.emit()
    assert [chip.name for chip in window.composer.attachments.chips()] == ["otters.txt"]
    QTimer.singleShot(0, lambda: answer_the_dialog(None))
    window.composer.attach_requested.emit()
    assert opened_in == [home.as_posix(), folder.as_posix()]


def _widget_dialog(parent, caption: str, folder: str, file_filter: str):
    """QFileDialog.getOpenFileNames as Qt's own dialog (no desktop portal in tests), with the same arguments."""
    dialog = QFileDialog(parent, caption, folder, file_filter)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
    dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
    if dialog.exec() != QFileDialog.DialogCode.Accepted:
        return [], ""
    return dialog.selectedFiles(), dialog.selectedNameFilter()
