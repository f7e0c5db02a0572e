"""The line above the composer that says why a send, a regenerate or an edited question was refused before it
started (no key stored, no model).

A refused send made no run and no answer, so its reason must not read as part of the conversation: shown in the
chat, under the previous answer, it looked as if that answer had failed (found in the user pass). The text stays
in the composer for the user to send again; this line goes on the next send, on a switch of conversation, or
with its close button.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QWidget

from widgets.warning_banner import banner_close_button

REFUSAL_COLOUR = "#c0392b"  # the chat's error red (widgets/chat_view.py ERROR_COLOUR)


class SendRefusal(QFrame):
    """Hidden until ``show_refusal``; ``clear`` hides it again."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sendRefusal")
        self.setAccessibleName("Send refused")
        self._text = QLabel(self)
        self._text.setObjectName("sendRefusalMessage")
        self._text.setTextFormat(Qt.TextFormat.PlainText)  # the reason may quote a provider's id or URL
        self._text.setWordWrap(True)
        self._text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._text.setStyleSheet(f"color: {REFUSAL_COLOUR};")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 8, 0)
        layout.setSpacing(8)
        layout.addWidget(self._text, 1)
        layout.addWidget(banner_close_button(self, "Close the refusal", self.clear), 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def show_refusal(self, message: str) -> None:
        self._text.setText(f"Not sent: {message}")
        self.show()

    def message(self) -> str:
        """The refusal shown now ("" when hidden)."""
        return self._text.text() if not self.isHidden() else ""

    def clear(self) -> None:
        self._text.clear()
        self.hide()
