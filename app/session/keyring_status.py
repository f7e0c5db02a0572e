"""The status bar's "Keyring: ..." line, filled in when the keyring is first used rather than at start.

Finding the keyring's backend imports every backend's libraries (D-Bus, cryptography: about 13 MB and 150 ms,
bench/RESULTS.md, issue 17), so the window does not look for it while starting. Until something needs a key (a
run with a provider that has one, Preferences > Keys, an MCP server's secret) the line says the keyring has not
been checked yet; the first use fills it in. A store given a backend (tests, scripts) shows it at once.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from shiboken6 import isValid

from app.secrets.probe import KeyringStatus, backend_display_name
from app.secrets.store import SecretStore
from widgets.main_window import MainWindow
from widgets.typed_signal import TypedSignal

NOT_CHECKED = "Keyring: not checked yet"


def status_text(status: KeyringStatus) -> str:
    return f"Keyring: {backend_display_name(status.backend)}" if status.usable else "Keyring: unavailable"


class KeyringStatusLine(QObject):
    _first_used = Signal(object)  # Qt's side of ``first_used``

    def __init__(self, window: MainWindow, secrets: SecretStore) -> None:
        super().__init__(window)
        # emitted on whichever thread first used the keyring (an MCP server reads its keys on a worker thread);
        # the connection queues it to the window's thread
        self.first_used: TypedSignal[KeyringStatus] = TypedSignal(self._first_used)
        self.window = window
        self.secrets = secrets
        self.first_used.connect(self._show)
        secrets.on_first_use(self._first_use)
        self.refresh()

    def _first_use(self, status: KeyringStatus) -> None:
        if isValid(self):  # the store can outlive the window (a worker finishing after it closed): nothing to show
            self.first_used.emit(status)

    def refresh(self) -> None:
        status = self.secrets.known_status()
        self.window.set_status(keyring=NOT_CHECKED if status is None else status_text(status))

    def _show(self, status: KeyringStatus) -> None:
        self.window.set_status(keyring=status_text(status))
