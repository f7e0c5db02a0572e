"""The window with the real Secret Service: a key put into the keyring by another tool (``secret-tool store``,
else the keyring library) after Parley noted "no key" for that provider is found when a send or Preferences'
connection test needs it. The keyring is asked once, in a worker thread; the question goes out with the key and
the note says "stored" from then on. Before, the note's "no key" refused every send with "No API key is stored"
until the key was stored through Parley (app/secrets/key_index.py, app/session/key_recheck.py)."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import uuid
from typing import Any

import pytest

from app.paths import resolve_paths
from app.secrets.key_index import KEY_INDEX_NAME, KeyIndex
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.keyring_elsewhere import remove, store_elsewhere
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_response
from tests.support.window_actions import settle

pytestmark = [
    pytest.mark.secret_service,
    pytest.mark.skipif(not os.environ.get("DBUS_SESSION_BUS_ADDRESS"), reason="no D-Bus session (Secret Service)"),
]
GUARD_S = 20.0  # hang guard for the keyring and the run, not a speed assertion


class ThreadNoting(SecretStore):
    """The real store, noting which thread asked the keyring despite the note (the UI thread must not)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.recheck_threads: list[threading.Thread] = []

    def recheck(self, name: str) -> str | None:
        self.recheck_threads.append(threading.current_thread())
        return super().recheck(name)


@pytest.fixture
def hosted():
    """A provider needing a key at a loopback server that answers only with the right one; yields (id, key)."""
    provider = f"hosted{uuid.uuid4().hex[:6]}"
    key = f"test-key-not-real-{uuid.uuid4().hex}"

    def model(request: Request) -> Response | None:
        if request.header("authorization") != f"Bearer {key}":
            return Response.json({"error": {"message": "missing or wrong key"}}, status=401)
        if request.path == "/v1/models":
            return Response.json({"data": [{"id": "m"}]})
        return stream_response("Answered with the key.")

    with LoopbackServer(handler=model) as server:
        save_settings(Settings(providers=[ProviderSettings(id=provider, preset="openai", base_url=server.url + "/v1",
                                                           default_model="m")], default_provider=provider),
                      resolve_paths().settings)
        try:
            yield provider, key, server
        finally:
            remove(f"provider:{provider}")


def open_window(qtbot, qasync_loop):
    from keyring.backends import SecretService

    store = ThreadNoting(SecretService.Keyring(), index=KeyIndex(resolve_paths().config_dir / KEY_INDEX_NAME))

    async def on_the_loop() -> tuple[Any, Any]:
        return build_window(secrets=store, discover=False)

    window, session = qasync_loop.run_until_complete(on_the_loop())
    qtbot.addWidget(window)
    window.show()
    return window, session, store


def rechecked(qasync_loop, session) -> None:
    async def until_done() -> None:
        async with asyncio.timeout(GUARD_S):
            while session.key_recheck.tasks():  # noqa: ASYNC110 (a task on this loop)
                await asyncio.sleep(0.02)

    qasync_loop.run_until_complete(until_done())


def noted(entry: str) -> bool | None:
    return json.loads((resolve_paths().config_dir / KEY_INDEX_NAME).read_text())["entries"].get(entry)


def test_a_send_finds_a_key_added_with_another_tool(qtbot, qasync_loop, hosted, parley_home):
    provider, key, server = hosted
    entry = f"provider:{provider}"
    window, session, store = open_window(qtbot, qasync_loop)
    session.send("Are you there?")
    rechecked(qasync_loop, session)
    assert f"No API key is stored for {provider}" in window.send_refusal.message()
    assert window.composer.text() == "Are you there?"  # nothing the user wrote is lost
    assert noted(entry) is False and server.count == 0

    store_elsewhere(entry, key)
    window.composer.input_widget().clear()
    session.send("Are you there?")
    rechecked(qasync_loop, session)
    settle(qasync_loop, session)
    window.chat_view.flush()
    assert "Answered with the key." in window.chat_view.toPlainText()
    assert not window.send_refusal.isVisible() and window.composer.text() == ""
    assert noted(entry) is True and server.count == 1
    assert store.recheck_threads and threading.main_thread() not in store.recheck_threads
    qasync_loop.run_until_complete(asyncio.wait_for(session.aclose(), GUARD_S))
    session.history.close()


def test_a_connection_test_finds_a_key_added_with_another_tool(qtbot, qasync_loop, hosted, parley_home):
    provider, key, _server = hosted
    entry = f"provider:{provider}"
    _window, session, store = open_window(qtbot, qasync_loop)
    assert store.lookup(entry) is None and noted(entry) is False
    store_elsewhere(entry, key)
    listed = qasync_loop.run_until_complete(asyncio.wait_for(
        session.list_provider_models(session.settings.provider(provider), None), GUARD_S))
    assert listed == ["m"]
    assert noted(entry) is True
    assert store.recheck_threads and threading.main_thread() not in store.recheck_threads
    qasync_loop.run_until_complete(asyncio.wait_for(session.aclose(), GUARD_S))
    session.history.close()
