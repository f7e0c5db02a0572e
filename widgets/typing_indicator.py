"""The chat's waiting state: a small "Waiting for the model…" line while a run has sent nothing yet.

Between Send and the first token a slow model (or a local one loading its weights) can take seconds; without a
sign the window looks stuck. The indicator floats over the bottom of the chat (it is not part of the document, so
it never disturbs the streaming answer or the history) with a spinner and a short text, and goes away on the
first token, the first tool call, an error, a stop or the end of the run. What it says is decided by the
conversation's state (``ConversationState.waiting_text``): waiting for the model, reasoning, or waiting for
the user's approval.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QWidget

from widgets.safe_text import plain_label
from widgets.spinner import Spinner

INDICATOR_MARGIN_PX = 12  # from the chat's left and bottom edges


class TypingIndicator(QFrame):
    """Shown over the bottom-left corner of ``host`` (the chat view's viewport) while ``set_text`` is not ""."""

    def __init__(self, host: QWidget) -> None:
        super().__init__(host)
        self.setObjectName("typingIndicator")
        self.setAccessibleName("Waiting state")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setAutoFillBackground(True)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self._spinner = Spinner(self)
        self._label = plain_label("", self)
        self._label.setObjectName("paneStatus")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 10, 4)
        layout.setSpacing(6)
        layout.addWidget(self._spinner)
        layout.addWidget(self._label)
        host.installEventFilter(self)
        self.hide()

    def set_text(self, text: str) -> None:
        """Show ``text`` with the spinner running, or hide the indicator for ""."""
        if text == self.text() and self.isVisible() == bool(text):
            return
        self._label.setText(text)
        if text:
            self._spinner.start()
            self.adjustSize()
            self._place()
            self.show()
            self.raise_()
        else:
            self._spinner.stop()
            self.hide()

    def text(self) -> str:
        """What the indicator says now ("" when hidden)."""
        return self._label.text() if not self.isHidden() else ""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and not self.isHidden():
            self._place()
        return False

    def _place(self) -> None:
        host = self.parentWidget()
        if host is not None:
            self.move(INDICATOR_MARGIN_PX, host.height() - self.height() - INDICATOR_MARGIN_PX)
