"""Preferences > Chat: what a new chat starts with (its system prompt). A conversation then keeps its own,
changed in the composer's chat settings; changing the default here does not touch existing conversations."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from widgets.form_errors import error_label


class ChatDefaultsTab(QWidget):
    changed = Signal()

    def __init__(self, system_prompt: str, max_chars: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.max_chars = max_chars
        self.system_prompt = QPlainTextEdit(self)
        self.system_prompt.setObjectName("defaultSystemPrompt")
        self.system_prompt.setAccessibleName("Default system prompt")
        self.system_prompt.setPlaceholderText("None: new chats start without a system prompt")
        self.system_prompt.setPlainText(system_prompt)
        self.error = error_label()
        hint = QLabel("New chats start with this system prompt; each conversation keeps its own, changed with the "
                      "composer's Chat button. `parley chat` uses it for new conversations too.", self)
        hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Default system prompt", self))
        layout.addWidget(self.system_prompt, 1)
        layout.addWidget(self.error)
        layout.addWidget(hint)
        self.system_prompt.textChanged.connect(self._changed)
        self._changed()

    def problems(self) -> list[str]:
        length = len(self.system_prompt.toPlainText())
        if length > self.max_chars:
            return [f"Chat: the default system prompt has {length:,} characters; at most {self.max_chars:,}"]
        return []

    def result(self) -> dict[str, str]:
        return {"system_prompt": self.system_prompt.toPlainText()}

    def _changed(self) -> None:
        found = self.problems()
        self.error.setText("\n".join(found))
        self.error.setVisible(bool(found))
        self.changed.emit()
