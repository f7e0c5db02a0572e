"""The window's one status line about damaged values shown marked (app/storage/damaged_values.py).

A BLOB where the history stores text is shown as "[damaged value] ..." by whichever reader meets it (the list's
rows as they are shown, an opened conversation, its run trace, a search). This says so in the status bar once
per batch of newly found values, with the count so far for the history file, so the user knows why the mark
appears and that the rest of the history is intact. Readers may run off the GUI thread: a queued signal brings
the news to it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QMainWindow

from app.storage.damaged_values import listen, notice

NOTICE_MS = 20_000  # how long the status line stays


class DamagedNotice(QObject):
    found = Signal()

    def __init__(self, window: QMainWindow, path: Path) -> None:
        super().__init__(window)
        self.window = window
        self.path = path
        self._pending = False
        self.found.connect(self._schedule, Qt.ConnectionType.QueuedConnection)
        stop = self._stop = listen(self.found.emit)
        self.destroyed.connect(lambda *_: stop())

    def stop(self) -> None:
        self._stop()

    def _schedule(self) -> None:
        if not self._pending:
            self._pending = True
            QTimer.singleShot(0, self._say)

    def _say(self) -> None:
        self._pending = False
        line = notice(self.path)
        if line is not None:
            self.window.statusBar().showMessage(line, NOTICE_MS)

    def text(self) -> str | None:
        """The line as it would be shown now (None: no damaged value found in this history)."""
        return notice(self.path)
