"""An answer an error cut off keeps its reason after the run (found in the user pass), and says it once.

Live, the error showed under the answer; after reopening the conversation or a restart the answer read only
"The answer above was cut off by an error.", the reason being kept in the run's stored error alone.
"""

from __future__ import annotations

import asyncio
from typing import Any

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.loopback import LoopbackServer, Response
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_chunks
from tests.support.window_actions import settle

GUARD_S = 10.0  # hang guard, not a speed assertion


def open_window(qasync_loop: Any) -> tuple[Any, Any]:
    async def on_the_loop() -> tuple[Any, Any]:
        return build_window(secrets=SecretStore(MemoryKeyring()), discover=False)

    return qasync_loop.run_until_complete(on_the_loop())


# The stream stopped by an error leaves httpcore's body generator suspended; its finalization warning is the
# open "async generator ignored GeneratorExit" item of docs/user-pass.md (fixed on another branch), not this test's.
def test_the_reason_stays_after_reopening_and_a_restart(qtbot, qasync_loop, loopback: LoopbackServer,
                                                        parley_home):
    begun = stream_chunks("Otters hold hands while they sleep", piece=8)[:4]
    failure = {"error": {"message": "the server is overloaded", "type": "server_error"}}
    loopback.always("POST", "/v1/chat/completions", Response.sse([*begun, failure]))
    save_settings(Settings(providers=[ProviderSettings(id="local", base_url=loopback.url + "/v1", default_model="m")],
                           default_provider="local"), resolve_paths().settings)
    window, session = open_window(qasync_loop)
    qtbot.addWidget(window)
    session.send("Tell me about otters")

    settle(qasync_loop, session)
    window.chat_view.flush()
    live = window.chat_view.toPlainText()
    reason = live.split("The answer above was cut off by an error:", 1)[1].strip().splitlines()[0]
    assert "overloaded" in reason, live
    assert live.count(reason) == 1, live  # said once, not again as an "Error:" line under it (user pass 4)
    conversation = session.conversation_id
    session.new_chat()
    session.open_conversation(conversation)
    window.chat_view.flush()
    assert f"The answer above was cut off by an error: {reason}" in window.chat_view.toPlainText()
    qasync_loop.run_until_complete(asyncio.wait_for(session.aclose(), GUARD_S))
    session.history.close()
    window.close()

    window, session = open_window(qasync_loop)  # a restart
    qtbot.addWidget(window)
    session.open_conversation(conversation)
    window.chat_view.flush()
    assert f"The answer above was cut off by an error: {reason}" in window.chat_view.toPlainText()
    qasync_loop.run_until_complete(asyncio.wait_for(session.aclose(), GUARD_S))
    session.history.close()
