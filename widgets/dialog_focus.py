"""The main window has the keyboard when it opens and again when a dialog closes, also without a window manager.

Qt gives the keyboard to a dialog it shows, and when the dialog closes it leaves handing the keyboard back to the
window manager. Without one (a bare X server, a kiosk, Xvfb) nobody does: the X focus falls to the root window,
``QApplication.activeWindow()`` is None and every shortcut (Ctrl+N, Ctrl+O) and keystroke goes nowhere until the
window is clicked (found in the user passes). The same holds for the main window when it first shows: typing
reaches it through the X server's pointer focus, but it is not active, so no shortcut works. Qt's offscreen
platform behaves the same way after a dialog (tests/widgets/test_dialog_focus.py); tests/e2e/test_focus_without_
window_manager.py checks both on a real X server (Xvfb) with no window manager.

An application event filter watches the main window being shown and dialogs being hidden; on the next turn
of the event loop, if no window of the application is active, the window the dialog belonged to (a dialog of
Preferences goes back to Preferences), else the main window, is activated. With a window manager the window
is already active by then and nothing is done.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QDialog, QWidget


class DialogFocusReturn(QObject):
    """Installed on the application by ``return_focus_after_dialogs``; owned by ``main_window``."""

    def __init__(self, main_window: QWidget) -> None:
        super().__init__(main_window)
        self._main = main_window

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and watched is self._main:  # no window manager activates it either
            QTimer.singleShot(0, self, lambda: self._give_back(self._main))
        elif event.type() == QEvent.Type.Hide and isinstance(watched, QDialog) and watched.isWindow():
            parent = watched.parentWidget()
            owner = parent.window() if parent is not None else self._main
            QTimer.singleShot(0, self, lambda: self._give_back(owner))  # not at all once this window is gone
        return False

    def _give_back(self, owner: QWidget) -> None:
        if QApplication.activeWindow() is not None or QApplication.activeModalWidget() is not None:
            return  # a window manager (or the next dialog) already has the keyboard somewhere sensible
        for window in (owner, self._main):
            if window.isVisible() and not window.isMinimized():
                window.activateWindow()
                return


def return_focus_after_dialogs(main_window: QWidget) -> DialogFocusReturn:
    app = QApplication.instance()
    assert app is not None, "a QApplication exists before the main window"
    watcher = DialogFocusReturn(main_window)
    app.installEventFilter(watcher)
    return watcher
