"""The dialog for editing a message of the chat (a question to send again, or an answer to keep as the user's
version); OK makes a new version and the original stays (widgets/message_actions.py).

A question's attachments are listed under its text as removable chips: the new version carries the ones kept
(``kept_attachments``), never the composer's draft.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from widgets.attachment_strip import AttachmentChip, AttachmentStrip
from widgets.message_attachments import AttachmentView


class MessageEditor(QDialog):
    """Edit a message's text (and which of a question's attachments go with it); OK makes a new version."""

    def __init__(self, parent: QWidget, title: str, text: str, ok_label: str,
                 attachments: Sequence[AttachmentView] = ()) -> None:
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
        self.attachments = AttachmentStrip(self)
        self.attachments.setAccessibleName("Attachments sent with the new version")
        self.attachments.remove_requested.connect(self._remove)
        self.attachments.set_chips([AttachmentChip(view.key, view.name, view.detail, view.image_bytes())
                                    for view in attachments])
        layout.addWidget(self.attachments)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText(ok_label)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        QShortcut(QKeySequence("Ctrl+Return"), self, self.accept)
        self.editor.textChanged.connect(lambda: self.ok_button.setEnabled(bool(self.text().strip())))

    def text(self) -> str:
        return self.editor.toPlainText()

    def kept_attachments(self) -> list[str]:
        """The keys of the attachments still listed (the original's, less those removed), in their order."""
        return [chip.key for chip in self.attachments.chips()]

    def _remove(self, key: str) -> None:
        self.attachments.set_chips([chip for chip in self.attachments.chips() if chip.key != key])
