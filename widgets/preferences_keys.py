"""The preferences dialog's boundary to the keyring, and the key row it shows for a provider or search backend.

The dialog never imports the keyring: the app passes a ``KeyActions`` whose callables store, forget and locate
keys. A key row shows only where a key is kept ("stored in the keyring", "kept for this session only", "no key
stored"), never the key. When the keyring is unusable the row offers a session-only key instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QWidget

from widgets.safe_text import plain_label

KEY_STATUS_TEXT = {"keyring": "A key is stored in the keyring.", "session": "A key is kept for this session only.",
                   None: "No key stored."}


@dataclass(frozen=True)
class KeyActions:
    """What the dialog may do with keys; entry names are ``provider:<id>`` or ``search:<backend>``.

    ``store`` and ``store_for_session`` raise an exception whose message is shown to the user (an empty or
    multi-line key, a keyring that refused); ``keyring_problem`` is None when the keyring is usable.
    """

    location: Callable[[str], str | None]  # "keyring", "session" or None
    store: Callable[[str, str], None]
    store_for_session: Callable[[str, str], None]
    delete: Callable[[str], object]
    keyring_problem: Callable[[], str | None]


class KeyRow(QWidget):
    """A password field with Store and Forget, and a line saying whether a key is kept for ``entry``."""

    def __init__(self, actions: KeyActions, accessible_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key_actions = actions
        self.entry = ""
        self.session_only = actions.keyring_problem() is not None
        self.field = QLineEdit()
        self.field.setEchoMode(QLineEdit.EchoMode.Password)
        self.field.setAccessibleName(accessible_name)
        self.field.setPlaceholderText("paste a key; it is never shown again")
        self.store_button = QPushButton("Use for this session" if self.session_only else "Store key")
        self.store_button.setAccessibleName(f"{accessible_name}: store")
        self.forget_button = QPushButton("Forget key")
        self.forget_button.setAccessibleName(f"{accessible_name}: forget")
        self.status = plain_label("")
        self.status.setObjectName("keyStatus")
        self.status.setWordWrap(True)
        self.status.setAccessibleName(f"{accessible_name} status")
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.field, 1)
        row.addWidget(self.store_button)
        row.addWidget(self.forget_button)
        self.store_button.clicked.connect(self.store)
        self.forget_button.clicked.connect(self.forget)
        self.field.returnPressed.connect(self.store)

    def set_entry(self, entry: str, *, clear: bool = True) -> None:
        self.entry = entry
        if clear:
            self.field.clear()
        self.refresh()

    def typed_key(self) -> str | None:
        return self.field.text().strip() or None

    def refresh(self, problem: str | None = None) -> None:
        if not self.entry:
            self.status.setText("")
            self.setEnabled(False)
            return
        self.setEnabled(True)
        try:
            where = self.key_actions.location(self.entry)
        except Exception as error:  # a keyring that cannot be read; its message says what to do
            self.status.setText(str(error))
            return
        self.forget_button.setEnabled(where is not None)
        self.status.setText(problem or KEY_STATUS_TEXT[where])

    def store(self) -> None:
        key = self.field.text()
        if not self.entry or not key.strip():
            return
        try:
            if self.session_only:
                self.key_actions.store_for_session(self.entry, key)
            else:
                self.key_actions.store(self.entry, key)
        except Exception as error:  # the store's message is written for the user
            self.refresh(problem=f"Not stored: {error}")
            return
        self.field.clear()
        self.refresh()

    def forget(self) -> None:
        if not self.entry:
            return
        try:
            self.key_actions.delete(self.entry)
        except Exception as error:  # the store's message is written for the user
            self.refresh(problem=f"Not removed: {error}")
            return
        self.refresh()
