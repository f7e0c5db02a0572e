"""A user's first minute, played into the real window for bench/startup.py: open a conversation, send, wait.

With ``PARLEY_STARTUP_DRIVE=TEXT`` (and ``PARLEY_STARTUP_TRACE``) set, once the window is ready this clicks the
conversation list's top row with a real mouse event, types TEXT into the composer with real key events and
presses Enter, then writes ``opened``, ``sent`` and ``answered`` marks (app/session/startup_trace.py) as each step is
done; with ``PARLEY_STARTUP_QUIT_AFTER`` it quits that long after the answer. The benchmark reads the process's
memory after ``answered`` (issue 17: "after a 200-message conversation is opened and a 2,000-token answer
streamed"). Without the variable nothing here is imported. Qt's test module drives the events: it sends them
through the same handlers a mouse and a keyboard do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtTest import QTest

from app.session import startup_trace

if TYPE_CHECKING:
    from app.session.chat_session import ChatSession
    from widgets.main_window import MainWindow

STEP_MS = 200  # between the steps, so each one's repaint happens before the next, as with a person


def drive(window: MainWindow, session: ChatSession, text: str) -> None:
    """Open the top conversation, then send ``text``; marks each step and quits after the answer if asked."""
    def open_top() -> None:
        view = window.conversations.list
        index = view.model().index(0, 0)
        QTest.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                         view.visualRect(index).center())
        startup_trace.mark("opened")
        QTimer.singleShot(STEP_MS, send)

    def send() -> None:
        field = window.composer.input_widget()
        field.setFocus()
        QTest.keyClicks(field, text)
        QTest.keyClick(field, Qt.Key.Key_Return)
        startup_trace.mark("sent")

    def answered(_result: object) -> None:
        session.controller.run_finished.disconnect(answered)
        startup_trace.mark("answered")
        quit_after = startup_trace.quit_after()
        app = QCoreApplication.instance()
        if quit_after is not None and app is not None:
            QTimer.singleShot(int(quit_after * 1000), app.quit)

    session.controller.run_finished.connect(answered)
    QTimer.singleShot(STEP_MS, open_top)
