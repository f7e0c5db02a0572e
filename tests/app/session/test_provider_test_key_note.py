"""Preferences > Providers > Test connection with a preset that needs a key and none kept (found in the user pass).

A server's model list often needs no key, so the test said "Connected" while every message was then refused
with "No API key is stored": the test line now says so, and says nothing more when the preset needs no key.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt

from app.secrets.store import SecretStore
from app.session.gui import build_window
from tests.support.loopback import Response
from tests.support.memory_keyring import MemoryKeyring
from widgets.preferences_dialog import PreferencesDialog


def _tested_line(qtbot, qasync_loop, loopback, preset: str) -> str:
    loopback.always("GET", "/v1/models", Response.json({"data": [{"id": "pass-model"}]}))
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)  # window shortcuts need an active window
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    dialog = session.preferences
    assert isinstance(dialog, PreferencesDialog)
    tab = dialog.providers
    tab.add(preset)
    tab.id.setText("pass")
    tab.base_url.setText(loopback.url + "/v1")
    tab.test_connection()
    qasync_loop.run_until_complete(asyncio.wait_for(tab.test_task, 5))
    text = tab.test_result.text()
    dialog.reject()
    session.history.close()
    return text


def test_a_key_needing_preset_without_a_key_says_chats_need_one(qtbot, qasync_loop, loopback, parley_home):
    text = _tested_line(qtbot, qasync_loop, loopback, "openai")
    assert text.startswith("Connected: 1 model. pass-model")
    assert "need an API key" in text and "Custom OpenAI-compatible server" in text


def test_a_preset_without_keys_adds_no_note(qtbot, qasync_loop, loopback, parley_home):
    assert _tested_line(qtbot, qasync_loop, loopback, "custom") == "Connected: 1 model. pass-model"
