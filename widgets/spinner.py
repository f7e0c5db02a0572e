"""A small busy indicator: a rotating arc drawn with the palette's colours.

The panes show it while a run may still produce something for them. It animates with a QTimer only while it is
both running and visible, so a hidden pane or a collapsed section costs nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt, QTimer
from PySide6.QtGui import QHideEvent, QPainter, QPaintEvent, QPalette, QPen, QShowEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

SPINNER_FRAME_MS = 40
"""Time between animation steps (25 steps a second: smooth enough for a small arc, cheap on 2 cores)."""
SPINNER_STEP_DEGREES = 30
SPINNER_SIZE_PX = 16
_ARC_SPAN_DEGREES = 100


class Spinner(QWidget):
    """A rotating arc; ``start()``/``stop()`` control it, and it only animates while visible."""

    def __init__(self, parent: QWidget | None = None, size: int = SPINNER_SIZE_PX) -> None:
        super().__init__(parent)
        self._size = size
        self._angle = 0
        self._running = False
        self._timer = QTimer(self)
        self._timer.setInterval(SPINNER_FRAME_MS)
        self._timer.timeout.connect(self._advance)
        self.setFixedSize(size, size)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setAccessibleName("Working")

    def start(self) -> None:
        self._running = True
        if self.isVisible():
            self._timer.start()

    def stop(self) -> None:
        self._running = False
        self._timer.stop()

    def is_running(self) -> bool:
        """Whether the spinner has been started (it may still be paused because it is hidden)."""
        return self._running

    def is_animating(self) -> bool:
        """Whether its timer is ticking right now (running and visible)."""
        return self._timer.isActive()

    def sizeHint(self) -> QSize:
        return QSize(self._size, self._size)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._running:
            self._timer.start()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self._timer.stop()

    def _advance(self) -> None:
        self._angle = (self._angle + SPINNER_STEP_DEGREES) % 360
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        if not self._running:
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pen_width = max(1.5, self._size / 8)
        inset = pen_width / 2 + 0.5
        area = QRectF(self.rect()).adjusted(inset, inset, -inset, -inset)
        track = QPen(self.palette().color(QPalette.ColorRole.Mid), pen_width)
        painter.setPen(track)
        painter.drawEllipse(area)
        arc = QPen(self.palette().color(QPalette.ColorRole.Highlight), pen_width)
        arc.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(arc)
        # Qt angles are in 1/16 degree, counter-clockwise; negate to turn clockwise.
        painter.drawArc(area, -self._angle * 16, _ARC_SPAN_DEGREES * 16)
        painter.end()
