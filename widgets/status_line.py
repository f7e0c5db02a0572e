"""The window's status bar, whose messages stay readable however long they are.

Qt's own status bar draws a message from the left edge and clips it where the first permanent widget (model,
tokens, MCP, keyring, spend) begins: a long note ("Cut 1 attachment name longer than ...", "1 damaged value
shown as ... the rest of the history is intact") lost its end, mid-word and without a sign, and the end is often
the part that says what happened. This bar keeps the permanent widgets where they are and draws the message
elided in the middle instead, so its start and its end both show with "…" where text is left out. The whole
text is the tooltip over the message while it is shown, and the last ``HISTORY_LIMIT`` messages can be read again
(and copied) from the bar's context menu, "Recent messages…", after their timeout has cleared them.

Only messages shown through ``showMessage`` from Python are kept in the history; Qt's own status tips (menu
hover) are drawn the same way but not kept.
"""

from __future__ import annotations

import time
from collections import deque
from typing import NamedTuple

from PySide6.QtCore import QEvent, QRect, Qt
from PySide6.QtGui import QContextMenuEvent, QFontMetrics, QGuiApplication, QHelpEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QMenu,
    QPlainTextEdit,
    QSizeGrip,
    QStatusBar,
    QStyle,
    QStyleOption,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

__all__ = ["HISTORY_LIMIT", "StatusLine", "StatusRecord"]

HISTORY_LIMIT = 50  # messages kept for "Recent messages…"; older ones are dropped
MESSAGE_LEFT = 6  # Qt's own margins around the message (qstatusbar.cpp, messageRect)
MESSAGE_RIGHT = 12
WIDGET_GAP = 2  # space kept before the first permanent widget
HISTORY_DIALOG = "recentStatusMessages"


END_SHARE = 0.6  # of the room, kept first for the message's end (which often says what happened)
ELLIPSIS = "\u2026"


def elide_words(text: str, metrics: QFontMetrics, width: int) -> str:
    """``text`` if it fits in ``width`` pixels, else its first and last whole words around "…".

    The end gets up to ``END_SHARE`` of the room, the start what is left. When not even one whole word fits on
    either side, Qt's own middle elision (which may cut inside words) is used.
    """
    if metrics.horizontalAdvance(text) <= width:
        return text
    words = text.split(" ")
    budget = width - metrics.horizontalAdvance(ELLIPSIS)

    def fits(part: str, limit: float) -> bool:
        return metrics.horizontalAdvance(part) <= limit

    tail: list[str] = []
    while len(tail) < len(words) - 1 and fits(" ".join([words[-1 - len(tail)], *tail]), budget * END_SHARE):
        tail.insert(0, words[-1 - len(tail)])
    end = " " + " ".join(tail) if tail else ""
    head: list[str] = []
    while len(head) + len(tail) < len(words) - 1 and fits(
            f"{' '.join([*head, words[len(head)]])} {ELLIPSIS}{end}", width):
        head.append(words[len(head)])
    start = " ".join(head)
    if not head or not tail:
        return metrics.elidedText(text, Qt.TextElideMode.ElideMiddle, width)
    return f"{start} {ELLIPSIS}{end}"


class StatusRecord(NamedTuple):
    shown_at: float  # time.time()
    text: str


class StatusLine(QStatusBar):
    """A QStatusBar that elides long messages in the middle and remembers the recent ones."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._history: deque[StatusRecord] = deque(maxlen=HISTORY_LIMIT)
        self.messageChanged.connect(self._message_changed)

    # -- what the rest of the window calls ---------------------------------------------------------------------

    def showMessage(self, text: str, timeout: int | None = 0) -> None:
        if text:
            self._history.append(StatusRecord(time.time(), text))
        super().showMessage(text, 0 if timeout is None else timeout)

    def history(self) -> list[StatusRecord]:
        """The recent messages, oldest first (at most ``HISTORY_LIMIT``)."""
        return list(self._history)

    def message_rect(self) -> QRect:
        """Where the message is drawn: from the leading margin to just before the first visible permanent widget
        (or the size grip), on the other side in a right-to-left layout."""
        left, right = MESSAGE_LEFT, self.width() - MESSAGE_RIGHT
        rtl = self.layoutDirection() == Qt.LayoutDirection.RightToLeft
        for widget in self._item_widgets():
            gap = 0 if isinstance(widget, QSizeGrip) else WIDGET_GAP
            if rtl:
                left = max(left, widget.x() + widget.width() + gap)
            else:
                right = min(right, widget.x() - gap)
        return QRect(left, 0, max(0, right - left), self.height())

    def shown_text(self) -> str:
        """The message as drawn now: the whole text when it fits, else elided in the middle."""
        message = self.currentMessage()
        if not message:
            return ""
        return elide_words(message, self.fontMetrics(), self.message_rect().width())

    # -- drawing ------------------------------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        # Qt's paintEvent, with the message elided instead of clipped (the panel and item frames as Qt draws them)
        message = self.currentMessage()
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawPrimitive(QStyle.PrimitiveElement.PE_PanelStatusBar, option, painter, self)
        for widget in self._item_widgets():
            if isinstance(widget, QSizeGrip):
                continue
            frame = QStyleOption()
            frame.rect = widget.geometry().adjusted(-2, -1, 2, 1)
            frame.palette = self.palette()
            frame.state = QStyle.StateFlag.State_None
            if event.rect().intersects(frame.rect):
                self.style().drawPrimitive(QStyle.PrimitiveElement.PE_FrameStatusBarItem, frame, painter, widget)
        if message:
            painter.setPen(self.palette().windowText().color())
            painter.drawText(self.message_rect(), int(Qt.AlignmentFlag.AlignLeading | Qt.AlignmentFlag.AlignVCenter
                                                      | Qt.TextFlag.TextSingleLine), self.shown_text())
        painter.end()

    def _item_widgets(self) -> list[QWidget]:
        # Qt hides the ordinary (non-permanent) widgets while a message is shown, so the visible ones then are the
        # permanent ones (and the size grip)
        return [child for child in self.children()
                if isinstance(child, QWidget) and not child.isWindow() and child.isVisible()]

    def event(self, event: QEvent) -> bool:
        # the whole message as a tooltip over the message only, not over a permanent label without its own tooltip
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            if self.currentMessage() and self.message_rect().contains(event.pos()):
                QToolTip.showText(event.globalPos(), self.currentMessage(), self, self.message_rect())
            else:
                QToolTip.hideText()
            return True
        return super().event(event)

    def _message_changed(self, text: str) -> None:
        self.setToolTip(text)
        self.update()

    # -- reading a message again ----------------------------------------------------------------------------------

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        self.context_menu().exec(event.globalPos())

    def context_menu(self) -> QMenu:
        """Copy Message (the one shown, whole) and Recent Messages… (the history window)."""
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        copy = menu.addAction("Copy Message")
        copy.setEnabled(bool(self.currentMessage()))
        message = self.currentMessage()
        copy.triggered.connect(lambda: QGuiApplication.clipboard().setText(message))
        recent = menu.addAction("Recent Messages…")
        recent.setEnabled(bool(self._history))
        recent.triggered.connect(self.show_history)
        return menu

    def history_text(self) -> str:
        """The recent messages as plain lines, newest last, each with the time it was shown."""
        return "\n".join(f"{time.strftime('%H:%M:%S', time.localtime(r.shown_at))}  {r.text}" for r in self._history)

    def show_history(self) -> QDialog:
        """A small read-only window with the recent messages (selectable, so they can be copied); asked again
        while it is open, the same window is filled anew and raised."""
        dialog = self.window().findChild(QDialog, HISTORY_DIALOG)
        if isinstance(dialog, QDialog) and dialog.isVisible():
            area = dialog.findChild(QPlainTextEdit)
            if isinstance(area, QPlainTextEdit):
                area.setPlainText(self.history_text())
            dialog.raise_()
            dialog.activateWindow()
            return dialog
        dialog = QDialog(self.window())
        dialog.setObjectName(HISTORY_DIALOG)
        dialog.setWindowTitle("Recent Status Messages")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        text = QPlainTextEdit(self.history_text())
        text.setReadOnly(True)
        text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        text.setAccessibleName("Recent status messages")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(dialog.reject)
        layout = QVBoxLayout(dialog)
        layout.addWidget(text)
        layout.addWidget(buttons)
        dialog.resize(560, 320)
        dialog.show()
        return dialog
