"""A send refused before it starts says so near the composer, not under the previous answer (user pass).

With a conversation open, a send to a provider with no stored key showed "Error: No API key is stored…" in the
chat right under the last answer, as if that answer had failed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.loopback import LoopbackServer
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_response
from tests.support.window_actions import settle

GUARD_S = 10.0  # hang guard, not a speed assertion
NO_KEY = "No API key is stored for oa."


def test_a_refused_send_is_not_shown_as_the_last_answers_failure(qtbot, qasync_loop, loopback: LoopbackServer,
                                                                  parley_home):
    loopback.always("POST", "/v1/chat/completions", stream_response("Otters sleep holding hands."))
    providers = [ProviderSettings(id="local", base_url=loopback.url + "/v1", default_model="m"),
                 ProviderSettings(id="oa", preset="openai", base_url="https://api.openai.com/v1", default_model="g")]
    save_settings(Settings(providers=providers, default_provider="local"), resolve_paths().settings)

    async def on_the_loop() -> tuple[Any, Any]:
        return build_window(secrets=SecretStore(MemoryKeyring()), discover=False)

    window, session = qasync_loop.run_until_complete(on_the_loop())
    qtbot.addWidget(window)
    window.show()
    session.send("How do otters sleep?")

    settle(qasync_loop, session)
    window.chat_view.flush()
    answered = window.chat_view.toPlainText()
    assert "Otters sleep holding hands." in answered

    assert window.composer.set_current_model("oa", "g")
    window.composer.input_widget().setPlainText("And where?")
    qtbot.keyClick(window.composer.input_widget(), "\r")  # Enter sends, as the user does it
    window.chat_view.flush()
    assert window.composer.text() == "And where?"  # nothing the user wrote is lost
    assert window.chat_view.toPlainText() == answered  # the last answer reads as it did: it did not fail
    assert NO_KEY in window.send_refusal.message() and window.send_refusal.isVisible()

    window.composer.set_current_model("local", "m")
    session.send(window.composer.text())  # the next send goes, and the refusal with it
    assert not window.send_refusal.isVisible()
    settle(qasync_loop, session)
    qasync_loop.run_until_complete(asyncio.wait_for(session.aclose(), GUARD_S))
    session.history.close()
