"""The window's recheck of a key only the stored-key note says is missing (app/session/key_recheck.py), where it
does not simply send: the composer changed while the keyring was asked, and a keyring that cannot be read. The
keyring is the boundary faked here; the real Secret Service cases are in test_key_added_elsewhere.py."""

from __future__ import annotations

import asyncio
from typing import Any

from app.paths import resolve_paths
from app.secrets import SERVICE
from app.secrets.key_index import KEY_INDEX_NAME, KeyIndex
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.memory_keyring import LockedKeyring, MemoryKeyring

GUARD_S = 10.0  # hang guard, not a speed assertion
QUESTION = "Where do otters sleep?"


def open_window(qtbot, qasync_loop, keyring: MemoryKeyring) -> tuple[Any, Any]:
    save_settings(Settings(providers=[ProviderSettings(id="oa", preset="openai", base_url="http://127.0.0.1:9/v1",
                                                       default_model="g")], default_provider="oa"),
                  resolve_paths().settings)
    index = KeyIndex(resolve_paths().config_dir / KEY_INDEX_NAME)
    index.record("provider:oa", False)  # noted earlier: no key

    async def on_the_loop() -> tuple[Any, Any]:
        return build_window(secrets=SecretStore(keyring, index=index), discover=False)

    window, session = qasync_loop.run_until_complete(on_the_loop())
    qtbot.addWidget(window)
    window.show()
    return window, session


def rechecked(qasync_loop, session) -> None:
    async def until_done() -> None:
        async with asyncio.timeout(GUARD_S):
            while session.key_recheck.tasks():  # noqa: ASYNC110 (a task on this loop)
                await asyncio.sleep(0.02)

    qasync_loop.run_until_complete(until_done())


def test_a_key_found_after_the_composer_changed_asks_to_send_again(qtbot, qasync_loop, parley_home):
    keyring = MemoryKeyring()
    keyring.set_password(SERVICE, "provider:oa", "test-key-not-real-0042")  # added by another tool
    window, session = open_window(qtbot, qasync_loop, keyring)
    session.send(QUESTION)
    assert window.composer.text() == QUESTION  # back in the composer while the keyring is asked
    window.composer.input_widget().setPlainText(QUESTION + " And where do they eat?")  # typed meanwhile
    rechecked(qasync_loop, session)
    assert window.send_refusal.message() == "Not sent: The key for oa was found in the keyring; press Send again."
    assert window.composer.text() == QUESTION + " And where do they eat?"
    assert session.conversation_id is None  # nothing was sent
    assert KeyIndex(resolve_paths().config_dir / KEY_INDEX_NAME).stored("provider:oa") is True
    session.history.close()


def test_a_keyring_that_cannot_be_read_is_explained(qtbot, qasync_loop, parley_home):
    window, session = open_window(qtbot, qasync_loop, LockedKeyring())
    session.send(QUESTION)
    rechecked(qasync_loop, session)
    refusal = window.send_refusal.message()
    assert refusal.startswith("Not sent: Could not read provider:oa from the keyring."), refusal
    assert window.composer.text() == QUESTION
    assert KeyIndex(resolve_paths().config_dir / KEY_INDEX_NAME).stored("provider:oa") is False
    session.history.close()
