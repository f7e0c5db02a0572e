"""The dialog for editing a message of the chat (a question to send again, or an answer to keep as the user's
version); OK makes a new version and the original stays (widgets/message_actions.py)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget


class MessageEditor(QDialog):
    """Edit a message's text; OK makes a new version (the original stays)."""

    def __init__(self, parent: QWidget, title: str, text: str, ok_label: str) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.resize(640, 360)
        layout = QVBoxLayout(self)
        note = QLabel("The original is kept: the edit becomes a new version, and ‹ › switches between them.")
        note.setWordWrap(True)
        layout.addWidget(note)
        self.editor = QPlainTextEdit()
        self.editor.setPlainText(text)
        self.editor.setAccessibleName("Message text")
        layout.addWidget(self.editor, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText(ok_label)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        QShortcut(QKeySequence("Ctrl+Return"), self, activated=self.accept)
        self.editor.textChanged.connect(lambda: self.ok_button.setEnabled(bool(self.text().strip())))

    def text(self) -> str:
        return self.editor.toPlainText()
