"""A non-blocking banner for the run's guardrail warnings (clamp, max iterations, repaired arguments, ...).

Each warning code is shown once per run; several warnings stack in the one banner. It stays until the user closes
it: a warning explains the answer next to it, so it must not vanish while the user is reading elsewhere. When a
conversation is reopened, its last run's stored events are replayed through ``handle_event``, which brings its
warnings back. ``error`` events are not shown here: errors belong in the conversation, next to the answer they
ended.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, assert_never

from PySide6.QtCore import QEvent, QSize, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from widgets.icons import icon

if TYPE_CHECKING:  # the event classes are imported where they are matched: pydantic stays off the first frame
    from orchestration.events import RunEvent

BANNER_ICON_PX = 18


def banner_close_button(banner: QWidget, accessible_name: str, on_click: Callable[[], object]) -> QToolButton:
    """The small flat close button every banner above the chat has (styled as ``#bannerClose``)."""
    close = QToolButton(banner)
    close.setObjectName("bannerClose")
    close.setIcon(icon("close"))
    close.setIconSize(QSize(14, 14))
    close.setAutoRaise(True)
    close.setAccessibleName(accessible_name)
    close.setToolTip("Close")
    close.clicked.connect(on_click)
    return close


class WarningBanner(QFrame):
    """Feed it every run event through ``handle_event``; it shows only ``warning`` events."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("warningBanner")
        self.setAccessibleName("Run warnings")
        self._run_id: str | None = None
        self._codes_this_run: set[str] = set()
        self._messages: list[str] = []
        self._icon: QLabel | None = None

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
        close = banner_close_button(self, "Close the warnings", self.dismiss)
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

    def handle_event(self, event: RunEvent) -> None:
        from orchestration import events as ev  # here, not at the top: pydantic stays off the first frame

        match event:
            case ev.RunStarted():
                self.dismiss()  # the banner belongs to one run: the previous run's warnings go
                self._run_id = event.run_id
                self._codes_this_run.clear()
            case ev.RunWarning():
                if self._run_id is None or event.run_id == self._run_id:
                    self._add(event.code, event.message)
            case (ev.ReasoningDelta() | ev.ContentDelta() | ev.ToolCalls() | ev.ToolExecuting() | ev.ToolResult()
                  | ev.Usage() | ev.ModelCallStarted() | ev.ModelCallFinished() | ev.ModelExchange() | ev.RunError()
                  | ev.Done()):
                pass
            case _:
                assert_never(event)

    def _add(self, code: str, message: str) -> None:
        if code in self._codes_this_run:
            return
        self._codes_this_run.add(code)
        self._messages.append(message)
        self._text.setText("\n".join(self._messages))
        self.show()

    def clear(self) -> None:
        """Show no run's warnings and belong to no run (a new chat; a reopened conversation before its stored
        run's events are replayed through ``handle_event``)."""
        self.dismiss()
        self._run_id = None
        self._codes_this_run.clear()

    def dismiss(self) -> None:
        """Hide the banner and forget its messages (the codes stay shown-once for the current run)."""
        self._messages.clear()
        self._text.clear()
        self.hide()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._refresh_icon()

    def _refresh_icon(self) -> None:
        """Draw the icon in the banner's text colour (the style sheet gives the banner its own colours)."""
        if self._icon is not None:
            color = self.palette().color(QPalette.ColorRole.WindowText)
            self._icon.setPixmap(icon("warning", color).pixmap(QSize(BANNER_ICON_PX, BANNER_ICON_PX)))
