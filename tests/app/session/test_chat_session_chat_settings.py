"""Chat settings per conversation in the real window: what the composer sets reaches the request (system prompt,
temperature, output limit, the tools picked), is kept with the conversation and comes back when it is reopened,
also after a restart; New chat starts from the defaults; a control the provider cannot take is disabled with
the reason and nothing waits for reasoning that was never asked for."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.paths import resolve_paths
from app.settings import ProviderSettings, Settings, save_settings
from app.storage import History
from app.storage.chat_settings import ChatSettingsStore
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_response
from tests.support.session_window import shown_session_window
from widgets.chat_settings_popover import ChatOptions

GUARD_S = 15  # hang guard, not a speed assertion


def answer(request: Request) -> Response | None:
    return stream_response("Fine.") if request.path == "/v1/chat/completions" else None


@pytest.fixture
def server():
    with LoopbackServer(handler=answer) as running:
        yield running


@pytest.fixture
def configured(server, parley_home: Path) -> Path:
    settings = Settings(providers=[
        ProviderSettings(id="local", preset="custom", base_url=server.url + "/v1", default_model="m1"),
        ProviderSettings(id="other", preset="vllm", base_url=server.url + "/v1", default_model="m2"),
    ], default_provider="local")
    settings.chat.system_prompt = "Default prompt."
    save_settings(settings, resolve_paths().settings)
    return parley_home


def send(qasync_loop, window, session, text: str) -> None:
    done = qasync_loop.create_future()
    session.controller.event_emitted.connect(
        lambda e: done.set_result(e) if e.type == "done" and not done.done() else None)
    session.send(text)
    assert qasync_loop.run_until_complete(asyncio.wait_for(done, GUARD_S)).finish_reason == "stop"
    qasync_loop.run_until_complete(asyncio.sleep(0.05))


def sent_settings(request: Request) -> tuple:
    body = request.json
    system = body["messages"][0]["content"] if body["messages"][0]["role"] == "system" else None
    return (body["model"], system, body.get("temperature"), body.get("max_tokens"),
            [t["function"]["name"] for t in body.get("tools", [])])


def test_settings_reach_the_request_and_come_back_after_a_restart(qtbot, qasync_loop, configured, server):
    window, session = shown_session_window(qtbot)
    composer = window.composer
    assert composer.current_model() == ("local", "m1")
    assert composer.chat_options() == ChatOptions("Default prompt.", None, None)
    assert composer.selected_tools() is None and "calculate" in composer.tool_picker().options()

    assert composer.set_current_model("other", "m2")
    composer.set_chat_options(ChatOptions("Be brief.", temperature=0.3, max_output_tokens=200))
    composer.set_selected_tools(("calculate",))
    send(qasync_loop, window, session, "hi")
    conversation = session.conversation_id
    assert sent_settings(server.requests[-1]) == ("m2", "Be brief.", 0.3, 200, ["calculate"])

    session.new_chat()
    assert composer.current_model() == ("local", "m1")
    assert composer.chat_options() == ChatOptions("Default prompt.", None, None)
    assert composer.selected_tools() is None
    session.history.close()

    again, again_session = shown_session_window(qtbot)
    again_session.open_conversation(conversation)
    assert again.composer.current_model() == ("other", "m2")
    assert again.composer.chat_options() == ChatOptions("Be brief.", 0.3, 200)
    assert again.composer.selected_tools() == ("calculate",)
    again_session.apply_preferences(again_session.settings)  # Preferences > OK keeps the conversation's model
    assert again.composer.current_model() == ("other", "m2")
    send(qasync_loop, again, again_session, "and again")
    assert sent_settings(server.requests[-1]) == ("m2", "Be brief.", 0.3, 200, ["calculate"])
    again_session.history.close()


def test_a_changed_control_is_kept_with_the_open_conversation(qtbot, qasync_loop, configured, server):
    window, session = shown_session_window(qtbot)
    send(qasync_loop, window, session, "hi")
    conversation = session.conversation_id
    assert sent_settings(server.requests[-1])[1] == "Default prompt."
    popover = window.composer.chat_settings_button().popover
    popover.output_limit.check.setChecked(True)
    popover.output_limit.spin.setValue(777)
    popover.system_prompt.setPlainText("")
    session.history.close()

    with History.open(resolve_paths().database) as history:
        kept = ChatSettingsStore(history).load(conversation)
    assert (kept.max_output_tokens, kept.system_prompt, kept.provider, kept.model) == (777, None, "local", "m1")
    again, again_session = shown_session_window(qtbot)
    again_session.open_conversation(conversation)
    assert again.composer.chat_options() == ChatOptions("", None, 777)
    send(qasync_loop, again, again_session, "more")
    assert sent_settings(server.requests[-1])[:4] == ("m1", None, None, 777)
    again_session.history.close()


def test_reasoning_effort_is_disabled_for_a_custom_server_and_nothing_waits_for_it(qtbot, qasync_loop,
                                                                                   configured, server):
    window, session = shown_session_window(qtbot)
    composer = window.composer
    composer.set_reasoning_effort("high")
    effort = composer.findChild(type(composer._effort), "effortPicker")
    assert not effort.isEnabled()
    assert "has no reasoning-effort setting Parley knows how to send" in effort.toolTip()
    expected: list[bool] = []
    original = window.reasoning_pane.expect_reasoning
    window.reasoning_pane.expect_reasoning = lambda value: (expected.append(value), original(value))
    send(qasync_loop, window, session, "think hard")
    assert expected == [False]
    assert "reasoning_effort" not in server.requests[-1].json
    session.history.close()
