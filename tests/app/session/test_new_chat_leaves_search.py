"""New chat with a search still in the conversation list's box (found in a user pass): the new conversation never
appeared in the list, which kept showing the search's matches until the box was cleared. New chat now leaves the
search (``ConversationList.leave_search``, docs/widgets.md): the full list shows, and the new chat joins it when
its first question is sent. Real window, real SQLite file, a loopback provider."""

from __future__ import annotations

import asyncio
from typing import Any

from PySide6.QtCore import Qt

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from app.storage import History
from tests.support.loopback import LoopbackServer, Response
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_chunks
from tests.support.window_actions import settle
from widgets.conversation_list import SEARCH_DEBOUNCE_MS

GUARD_S = 10.0  # hang guard, not a speed assertion


def test_new_chat_clears_the_search_and_the_new_conversation_is_listed(qtbot, qasync_loop: Any,
                                                                      loopback: LoopbackServer, parley_home):
    history = History.open(resolve_paths().database)
    otters = history.create_conversation("Sea otters")
    history.close()
    loopback.always("POST", "/v1/chat/completions", Response.sse(stream_chunks("Take tram 28.", piece=8)))
    save_settings(Settings(providers=[ProviderSettings(id="local", base_url=loopback.url + "/v1", default_model="m")],
                           default_provider="local"), resolve_paths().settings)

    async def on_the_loop() -> tuple[Any, Any]:
        return build_window(secrets=SecretStore(MemoryKeyring()), discover=False)

    window, session = qasync_loop.run_until_complete(on_the_loop())
    qtbot.addWidget(window)
    conversations = window.conversations
    qtbot.keyClicks(conversations.search_box, "otters")
    qtbot.waitUntil(lambda: conversations.searching)
    assert conversations.ids_in_order() == [otters]

    qtbot.mouseClick(conversations.new_button, Qt.MouseButton.LeftButton)
    assert conversations.search_box.text() == ""
    assert not conversations.searching
    assert conversations.ids_in_order() == [otters]  # the whole list (one conversation so far)

    session.send("Trams in Lisbon?")
    settle(qasync_loop, session)
    new = session.conversation_id
    assert new is not None and new != otters
    assert set(conversations.ids_in_order()) == {otters, new}
    qtbot.wait(2 * SEARCH_DEBOUNCE_MS)  # past the search box's debounce: no search comes back from the emptied box
    assert not conversations.searching and set(conversations.ids_in_order()) == {otters, new}
    qasync_loop.run_until_complete(asyncio.wait_for(session.aclose(), GUARD_S))
    session.history.close()
    window.close()


def test_deleting_a_conversation_keeps_the_search(qtbot, parley_home):
    history = History.open(resolve_paths().database)
    otters = history.create_conversation("Sea otters")
    kept = history.create_conversation("River otters")
    history.close()
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    conversations = window.conversations
    qtbot.keyClicks(conversations.search_box, "otters")
    qtbot.waitUntil(lambda: conversations.searching)
    session.open_conversation(otters)
    session.delete(otters)  # the open one: the window shows a new chat, not through New chat
    assert conversations.search_box.text() == "otters"
    assert conversations.searching
    session.search("otters")
    assert conversations.ids_in_order() == [kept]
    session.history.close()
