"""A non-blocking banner for the run's guardrail warnings (clamp, max iterations, repaired arguments, ...).

Each warning code is shown once per run; several warnings stack in the one banner. It has a close button and
hides by itself ``AUTO_HIDE_SECONDS`` after the last warning arrived (the countdown pauses while the pointer is
over it). ``error`` events are not shown here: errors belong in the conversation, next to the answer they ended.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QSize, Qt, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from widgets.icons import icon

if TYPE_CHECKING:  # events are told apart by their `type`, so no runtime import is needed
    from orchestration.events import RunEvent

AUTO_HIDE_SECONDS = 12.0
"""How long the banner stays after its latest warning, unless the pointer rests on it."""
BANNER_ICON_PX = 18


class WarningBanner(QFrame):
    """Feed it every run event through ``handle_event``; it shows only ``warning`` events."""

    def __init__(self, parent: QWidget | None = None, *, auto_hide_seconds: float = AUTO_HIDE_SECONDS) -> None:
        super().__init__(parent)
        self.setObjectName("warningBanner")
        self.setAccessibleName("Run warnings")
        self._run_id: str | None = None
        self._codes_this_run: set[str] = set()
        self._messages: list[str] = []
        self._icon: QLabel | None = None

        self._hide_timer = QTimer(self)
        self._hide_timer.setSingleShot(True)
        self._hide_timer.setInterval(round(auto_hide_seconds * 1000))
        self._hide_timer.timeout.connect(self.dismiss)

        badge = QLabel(self)
        badge.setObjectName("bannerIcon")
        badge.setAccessibleName("Warning")
        badge.setAlignment(Qt.AlignmentFlag.AlignTop)
        self._icon = badge
        self._refresh_icon()
        self._text = QLabel(self)
        self._text.setObjectName("bannerMessage")
        self._text.setTextFormat(Qt.TextFormat.PlainText)
        self._text.setWordWrap(True)
        self._text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._text.setAccessibleName("Warning messages")
        close = QToolButton(self)
        close.setObjectName("bannerClose")
        close.setIcon(icon("close"))
        close.setIconSize(QSize(14, 14))
        close.setAutoRaise(True)
        close.setAccessibleName("Close the warnings")
        close.setToolTip("Close")
        close.clicked.connect(self.dismiss)
        self._close = close

        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 8, 8, 8)
        layout.setSpacing(10)
        layout.addWidget(badge, 0, Qt.AlignmentFlag.AlignTop)
        text_column = QVBoxLayout()
        text_column.setContentsMargins(0, 0, 0, 0)
        text_column.addWidget(self._text)
        layout.addLayout(text_column, 1)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def messages(self) -> list[str]:
        """The messages the banner shows now (empty once it was closed or hid itself)."""
        return list(self._messages)

    def auto_hide_ms(self) -> int:
        return self._hide_timer.interval()

    def handle_event(self, event: RunEvent) -> None:
        if event.type == "run_started":
            self._run_id = event.run_id
            self._codes_this_run.clear()
        elif event.type == "warning":
            if self._run_id is not None and event.run_id != self._run_id:
                return
            if event.code in self._codes_this_run:
                return
            self._codes_this_run.add(event.code)
            self._messages.append(event.message)
            self._text.setText("\n".join(self._messages))
            self.show()
            if not self.underMouse():
                self._hide_timer.start()

    def dismiss(self) -> None:
        """Hide the banner and forget its messages (the codes stay shown-once for the current run)."""
        self._hide_timer.stop()
        self._messages.clear()
        self._text.clear()
        self.hide()

    def enterEvent(self, event: QEvent) -> None:
        super().enterEvent(event)
        self._hide_timer.stop()

    def leaveEvent(self, event: QEvent) -> None:
        super().leaveEvent(event)
        if self._messages:
            self._hide_timer.start()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._refresh_icon()

    def _refresh_icon(self) -> None:
        """Draw the icon in the banner's text colour (the style sheet gives the banner its own colours)."""
        if self._icon is not None:
            color = self.palette().color(QPalette.ColorRole.WindowText)
            self._icon.setPixmap(icon("warning", color).pixmap(QSize(BANNER_ICON_PX, BANNER_ICON_PX)))
