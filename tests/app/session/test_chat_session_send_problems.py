"""Send when the run service refuses to start: the window words the problem for its own menus, keeps the text
in the composer and writes nothing to the history."""

from __future__ import annotations

import pytest

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.memory_keyring import MemoryKeyring


@pytest.mark.parametrize(("provider", "expected"), [
    (ProviderSettings(id="oa", preset="openai", base_url="https://api.openai.com/v1", default_model="gpt-x"),
     "No API key is stored for oa. Add it with Preferences (Ctrl+,) or with `parley keys set oa`."),
    (ProviderSettings(id="local", base_url="http://127.0.0.1:9/v1"),
     "Provider local has no model chosen. Pick one in the model picker."),
])
def test_a_refused_send_keeps_the_text_and_says_why(qtbot, parley_home, provider, expected):
    save_settings(Settings(providers=[provider], default_provider=provider.id), resolve_paths().settings)
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    window.composer.input_widget().setPlainText("Keep me")
    session.send("Keep me")
    window.chat_view.flush()
    assert window.composer.input_widget().toPlainText().startswith("Keep me")
    assert expected in window.send_refusal.message() and expected not in window.chat_view.toPlainText()
    assert not session.controller.running and session.history.list_conversations() == []
    session.history.close()
