"""Quitting the window while an answer streams: the run is stopped, its partial answer is saved marked
interrupted, and the session's background work ends before the loop closes."""

from __future__ import annotations

import asyncio

from app.gui import build_window
from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.loopback import LoopbackServer, Response
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_chunks

GUARD_S = 10.0  # hang guard, not a speed assertion


def test_quit_mid_answer_saves_the_partial_answer(qtbot, qasync_loop, loopback: LoopbackServer, parley_home):
    first_pieces = stream_chunks("Otters use stones to crack shells", piece=8)[:3]  # the role, then two pieces
    loopback.always("POST", "/v1/chat/completions", Response.sse(first_pieces, hang=True))
    save_settings(Settings(providers=[ProviderSettings(id="local", base_url=loopback.url + "/v1", default_model="m")],
                           default_provider="local"), resolve_paths().settings)

    async def open_on_the_loop():
        return build_window(secrets=SecretStore(MemoryKeyring()), discover=False)

    window, session = qasync_loop.run_until_complete(open_on_the_loop())
    qtbot.addWidget(window)
    events = []
    session.controller.event_emitted.connect(events.append)
    session.send("How do otters eat?")

    async def until_streaming() -> None:
        async with asyncio.timeout(GUARD_S):
            while sum(e.type == "content" for e in events) < 2:  # noqa: ASYNC110 (a Qt signal feeds the list)
                await asyncio.sleep(0.01)

    qasync_loop.run_until_complete(until_streaming())
    assert session.controller.running
    qasync_loop.run_until_complete(asyncio.wait_for(session.aclose(), GUARD_S))
    assert not session.controller.running
    assert [e.finish_reason for e in events if e.type == "done"] == ["cancelled"]
    user, answer = session.history.branch(session.conversation_id)
    assert user.content == "How do otters eat?"
    assert (answer.content, answer.status) == ("Otters use stone", "interrupted")
    assert "".join(e.content for e in events if e.type == "content") == answer.content
    session.history.close()
