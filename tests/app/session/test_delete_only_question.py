"""Deleting a conversation's only question (found in a user pass) left a blank chat with no hint, and the
reasoning of the deleted answer in its pane; reopening the conversation showed the same. The conversation now
shows what a new chat shows: the empty-chat hint and empty panes. Real window, real SQLite file, a loopback
provider; the confirmation box is the one boundary replaced (it is modal)."""

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
from widgets.conversation_display import EMPTY_CHAT_TEXT

GUARD_S = 10.0  # hang guard, not a speed assertion
NEW_CHAT_SHOWS = [("notice", EMPTY_CHAT_TEXT)]


def shown(window: Any) -> list[tuple[str, str]]:
    window.chat_view.flush()
    return [(message.role, message.text) for message in window.chat_view.messages()]


def test_deleting_the_only_question_shows_the_empty_chat_hint(qtbot, qasync_loop: Any, loopback: LoopbackServer,
                                                              parley_home):
    loopback.always("POST", "/v1/chat/completions",
                    Response.sse(stream_chunks("Take tram 28.", reasoning="Trams: 28 is the classic.", piece=8)))
    save_settings(Settings(providers=[ProviderSettings(id="local", base_url=loopback.url + "/v1", default_model="m")],
                           default_provider="local"), resolve_paths().settings)

    async def on_the_loop() -> tuple[Any, Any]:
        return build_window(secrets=SecretStore(MemoryKeyring()), discover=False)

    window, session = qasync_loop.run_until_complete(on_the_loop())
    qtbot.addWidget(window)
    session.new_chat()
    assert shown(window) == NEW_CHAT_SHOWS  # what a new chat shows
    session.send("Trams in Lisbon?")
    settle(qasync_loop, session)
    conversation = session.conversation_id
    assert [role for role, _text in shown(window)] == ["user", "assistant"]
    assert window.reasoning_pane.phase_count() == 1

    actions = session.actions.actions
    actions.confirm_delete = actions.delete_pair.emit  # "Delete" confirmed
    actions.trigger("delete", 0)
    assert session.conversation_id == conversation  # still open, now empty
    assert session.history.branch(conversation) == []
    assert shown(window) == NEW_CHAT_SHOWS
    assert window.reasoning_pane.phase_count() == 0

    session.new_chat()
    session.open_conversation(conversation)  # reopened from the list: the same
    assert shown(window) == NEW_CHAT_SHOWS
    assert window.reasoning_pane.phase_count() == 0
    qasync_loop.run_until_complete(asyncio.wait_for(session.aclose(), GUARD_S))
    session.history.close()
    window.close()
