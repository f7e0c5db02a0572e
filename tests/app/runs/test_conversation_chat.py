"""A conversation's kept chat settings and ``parley chat``'s flags: flags win, kept values fill the rest, and a
kept value the provider now in use cannot take is left out with a notice (a flag's value is refused instead,
by the run service)."""

from __future__ import annotations

from app.runs.chat_turn import ChatSettings, ChatTarget
from app.runs.conversation_chat import stored_from, stored_tools, tools_spec, unsupported_kept, with_stored
from app.settings import ProviderSettings, Settings
from app.storage.chat_settings import StoredChatSettings
from orchestration.providers.presets import provider_from_preset

SETTINGS = Settings(providers=[ProviderSettings(id="local", base_url="http://127.0.0.1:9/v1", default_model="m1"),
                               ProviderSettings(id="oa", preset="openai", base_url="https://api.openai.com/v1")],
                    default_provider="local")
KEPT = StoredChatSettings(provider="oa", model="o3-mini", system_prompt="Be brief.", tools=("calculate",),
                          reasoning_effort="high", temperature=0.7, max_output_tokens=300)


def test_kept_settings_fill_what_no_flag_says():
    chat = with_stored(ChatSettings(), KEPT, SETTINGS, provider_given=False, tools_given=False)
    assert (chat.provider, chat.model, chat.system, chat.tools, chat.reasoning_effort, chat.temperature,
            chat.max_output_tokens) == ("oa", "o3-mini", "Be brief.", ("calculate",), "high", 0.7, 300)


def test_flags_win_and_a_named_provider_drops_the_kept_one():
    given = ChatSettings(provider="local", system="", tools="none", temperature=0.2)
    chat = with_stored(given, KEPT, SETTINGS, provider_given=True, tools_given=True)
    assert (chat.provider, chat.model, chat.system, chat.tools, chat.temperature) == ("local", None, "", "none", 0.2)
    gone = StoredChatSettings(provider="removed", model="x")
    assert with_stored(ChatSettings(), gone, SETTINGS, provider_given=False, tools_given=False).provider is None


def test_kept_values_the_provider_cannot_take_are_left_out_with_a_notice():
    target = ChatTarget(provider_from_preset("openai", api_key="k"), "o3-mini", "high")
    kept = ChatSettings(reasoning_effort="high", temperature=0.7, max_output_tokens=300)
    chat, notices = unsupported_kept(kept, ChatSettings(), target)
    assert (chat.reasoning_effort, chat.temperature, chat.max_output_tokens) == ("high", None, 300)
    assert notices == ["not sending the conversation's temperature 0.7: o3-mini at OpenAI takes no temperature "
                       "(reasoning models use their own)"]
    custom = ChatTarget(provider_from_preset("custom", base_url="http://127.0.0.1:9/v1"), "m", None)
    chat, notices = unsupported_kept(kept, ChatSettings(), custom)
    assert chat.reasoning_effort is None and chat.temperature == 0.7 and len(notices) == 1
    flagged, notices = unsupported_kept(kept, ChatSettings(reasoning_effort="high"), custom)
    assert flagged.reasoning_effort == "high" and notices == []  # a flag's value: the run service refuses it


def test_tool_lists_round_trip():
    for spec, kept in (("all", None), ("none", ()), ("a, b", ("a", "b")), (("x",), ("x",))):
        assert stored_tools(spec) == kept
    assert tools_spec(None) == "all" and tools_spec(()) == ()
    target = ChatTarget(provider_from_preset("custom", provider_id="local", base_url="http://127.0.0.1:9/v1"), "m1")
    assert stored_from(ChatSettings(system="", tools="none"), target) == StoredChatSettings(
        provider="local", model="m1", system_prompt=None, tools=())
