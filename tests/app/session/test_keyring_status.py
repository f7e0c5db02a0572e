"""The status bar's keyring line: not looked for at start (issue 17: finding the backend imports every backend's
libraries), filled in by the first use of the keyring, also when that use is on a worker thread."""

from __future__ import annotations

import threading

import keyring
from shiboken6 import isValid

from app.secrets.store import SecretStore
from app.session.keyring_status import NOT_CHECKED, KeyringStatusLine
from tests.support.memory_keyring import MemoryKeyring
from widgets.main_window import MainWindow


def _window(qtbot) -> MainWindow:
    window = MainWindow()
    qtbot.addWidget(window)
    return window


def _counting_get_keyring(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = keyring.get_keyring

    def get_keyring():
        calls.append(1)
        return real()

    monkeypatch.setattr(keyring, "get_keyring", get_keyring)
    return calls


def test_the_keyring_is_not_looked_for_until_a_key_is_needed(qtbot, memory_keyring, monkeypatch):
    calls = _counting_get_keyring(monkeypatch)
    window = _window(qtbot)
    secrets = SecretStore()
    line = KeyringStatusLine(window, secrets)
    line.refresh()
    assert window.keyring_label.text() == NOT_CHECKED
    assert calls == []
    assert secrets.lookup("provider:openai") is None  # the first use
    assert calls
    assert window.keyring_label.text() == "Keyring: MemoryKeyring"
    line.refresh()
    assert window.keyring_label.text() == "Keyring: MemoryKeyring"


def test_a_first_use_on_a_worker_thread_fills_the_line_on_the_window_thread(qtbot, memory_keyring):
    window = _window(qtbot)
    secrets = SecretStore()
    KeyringStatusLine(window, secrets)
    seen_on: list[threading.Thread] = []
    original = window.set_status

    def set_status(**kwargs):
        seen_on.append(threading.current_thread())
        original(**kwargs)

    window.set_status = set_status  # type: ignore[method-assign]
    worker = threading.Thread(target=secrets.lookup, args=("mcp:server:token",))  # as an MCP server reads its keys
    worker.start()
    worker.join(10)
    qtbot.waitUntil(lambda: window.keyring_label.text() == "Keyring: MemoryKeyring", timeout=5000)
    assert seen_on == [threading.main_thread()]


def test_an_unusable_keyring_reads_unavailable_once_used(qtbot, no_keyring):
    window = _window(qtbot)
    secrets = SecretStore()
    KeyringStatusLine(window, secrets)
    assert window.keyring_label.text() == NOT_CHECKED
    assert secrets.status(probe=False).usable is False
    assert window.keyring_label.text() == "Keyring: unavailable"


def test_a_given_backend_is_shown_at_once(qtbot):
    window = _window(qtbot)
    KeyringStatusLine(window, SecretStore(MemoryKeyring()))
    assert window.keyring_label.text() == "Keyring: MemoryKeyring"


def test_a_first_use_after_the_window_is_gone_is_no_error(qtbot, memory_keyring):
    window = MainWindow()
    secrets = SecretStore()
    KeyringStatusLine(window, secrets)
    window.deleteLater()
    qtbot.waitUntil(lambda: not isValid(window), timeout=5000)
    assert secrets.lookup("provider:openai") is None  # the store still works; the line is simply not shown
