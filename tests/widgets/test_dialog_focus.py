"""After a dialog closes the keyboard is back in the window it came from (user pass 4, item 4).

Without a window manager, after the add-provider or a file dialog closed, Ctrl+N and Ctrl+O went nowhere until
the window was clicked: nothing was active. Qt's offscreen platform behaves like a bare X server here (no
window manager hands the focus back), so the real main window shows it in a test.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox

from tests.support.main_window import active_main_window


def test_the_main_window_is_active_again_after_a_dialog_closes(qtbot):
    window = active_main_window(qtbot)
    dialog = QDialog(window)
    QTimer.singleShot(100, dialog.accept)
    dialog.exec()  # modal, as Parley's dialogs are
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=3000)
    assert QGuiApplication.focusWindow() is window.windowHandle()  # keys (Ctrl+N) reach the window again


def test_a_message_box_without_a_parent_gives_the_keyboard_back_too(qtbot):
    window = active_main_window(qtbot)
    box = QMessageBox(QMessageBox.Icon.Information, "Parley", "Exported.")
    QTimer.singleShot(100, box.accept)
    box.exec()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=3000)


def test_a_dialog_of_a_dialog_gives_the_keyboard_back_to_the_first(qtbot):
    window = active_main_window(qtbot)
    outer = QDialog(window)
    outer.show()
    outer.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is outer, timeout=3000)
    inner = QDialog(outer)
    QTimer.singleShot(100, inner.accept)
    inner.exec()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is outer, timeout=3000)
    outer.close()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=3000)
