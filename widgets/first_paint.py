"""Run something once, just after a widget's first paint has been handed to the window system.

Start-up work that can wait (opening the session, building syntax lexers) is started from here, so it never
delays the first frame a user sees (bench/startup.py measures it).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer


class FirstPaint(QObject):
    """An event filter that calls ``callback`` on the next event-loop turn after ``widget``'s first paint."""

    def __init__(self, widget: QObject, callback: Callable[[], None]) -> None:
        super().__init__(widget)
        self._callback = callback
        self.seen = False
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and not self.seen:
            self.seen = True
            watched.removeEventFilter(self)
            QTimer.singleShot(0, self._callback)  # after this paint event has been drawn and flushed
        return False


def after_first_paint(widget: QObject, callback: Callable[[], None]) -> FirstPaint:
    """Call ``callback`` once after ``widget`` is first painted; the filter is owned by ``widget``."""
    return FirstPaint(widget, callback)
