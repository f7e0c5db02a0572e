"""build_payload: what the OpenAI Chat Completions adapter sends, per provider capabilities."""

from __future__ import annotations

from typing import Any

import pytest

from orchestration.engine import NamedToolChoice, ResponseComplete
from orchestration.messages import (
    AssistantMessage,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)
from orchestration.providers.config import Capabilities, ProviderConfig
from orchestration.providers.framing import SSEFrames
from orchestration.providers.openai_chat import ChatChunkReader, build_payload
from orchestration.providers.presets import provider_from_preset
from orchestration.tool_api import ToolSpec
from tests.support import provider_fixtures as pf
from tests.support.adapter_requests import HI, payload_maker
from tests.support.adapter_runs import read_pieces

WEATHER = ToolSpec(name="weather", description="Weather for a city",
                   parameters={"type": "object", "properties": {"city": {"type": "string"}},
                               "required": ["city"]})


def config(**caps: Any) -> ProviderConfig:
    return ProviderConfig(id="p", base_url="http://x/v1", capabilities=Capabilities(**caps))


payload = payload_maker(build_payload, config, "m")


def test_minimal_streaming_payload() -> None:
    assert payload() == {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True,
                         "stream_options": {"include_usage": True}}


def test_non_streaming_and_no_usage_option() -> None:
    assert "stream" not in payload(stream=False) and "stream_options" not in payload(stream=False)
    mistral = provider_from_preset("mistral")
    body = payload(mistral)
    assert body["stream"] is True and "stream_options" not in body


def test_tools_and_default_choice() -> None:
    body = payload(tools=[WEATHER])
    assert body["tools"] == [{"type": "function", "function": {
        "name": "weather", "description": "Weather for a city", "parameters": WEATHER.parameters}}]
    assert body["tool_choice"] == "auto"
    assert "parallel_tool_calls" not in body  # not asked for


@pytest.mark.parametrize(("choice", "wire"), [
    ("none", "none"),
    ("required", "required"),
    (NamedToolChoice(name="weather"), {"type": "function", "function": {"name": "weather"}}),
])
def test_tool_choice(choice: Any, wire: Any) -> None:
    assert payload(tools=[WEATHER], tool_choice=choice)["tool_choice"] == wire


def test_no_tools_means_no_tool_fields() -> None:
    body = payload(tool_choice="required", parallel_tool_calls=True)
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(body)
    body = payload(config(tools=False), tools=[WEATHER], parallel_tool_calls=True)
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & set(body)


@pytest.mark.parametrize("value", [True, False])
def test_parallel_tool_calls_only_when_the_capability_allows(value: bool) -> None:
    assert payload(tools=[WEATHER], parallel_tool_calls=value)["parallel_tool_calls"] is value
    for preset in ("deepseek", "ollama", "llamacpp"):
        body = payload(provider_from_preset(preset, base_url="http://x/v1"), tools=[WEATHER],
                       parallel_tool_calls=value)
        assert "parallel_tool_calls" not in body, preset
    # xAI accepts the switch (and the loop turns parallel calls off there by default)
    xai = payload(provider_from_preset("xai"), tools=[WEATHER], parallel_tool_calls=value)
    assert xai["parallel_tool_calls"] is value


@pytest.mark.parametrize(("preset", "model", "expected"), [
    ("openai", "gpt-5-mini", {"reasoning_effort": "low"}),
    ("openai", "o3", {"reasoning_effort": "low"}),
    ("openai", "gpt-4o", {}),
    ("groq", "openai/gpt-oss-120b", {"reasoning_effort": "low"}),
    ("groq", "llama-3.3-70b-versatile", {}),
    ("xai", "grok-3-mini", {"reasoning_effort": "low"}),
    ("xai", "grok-4-fast", {}),
    ("openrouter", "anthropic/claude-sonnet-4.5", {"reasoning": {"effort": "low"}}),
    ("deepseek", "deepseek-reasoner", {}),
    ("mistral", "magistral-medium-latest", {}),
])
def test_reasoning_effort_only_for_supported_models(preset: str, model: str,
                                                    expected: dict[str, Any]) -> None:
    body = payload(provider_from_preset(preset), model=model, reasoning_effort="low")
    sent = {k: body[k] for k in ("reasoning_effort", "reasoning") if k in body}
    assert sent == expected
    assert "reasoning_effort" not in payload(provider_from_preset(preset), model=model)


def test_max_tokens_field_and_temperature() -> None:
    openai = payload(provider_from_preset("openai"), max_output_tokens=100, temperature=0.2)
    assert openai["max_completion_tokens"] == 100 and "max_tokens" not in openai
    assert openai["temperature"] == 0.2
    other = payload(provider_from_preset("groq"), max_output_tokens=100)
    assert other["max_tokens"] == 100 and "max_completion_tokens" not in other
    assert "temperature" not in other and "max_tokens" not in payload()


def test_assistant_tool_call_round_trip() -> None:
    assistant = AssistantMessage(parts=[
        TextPart(text="Checking."),
        ToolCallPart(id="call_1", name="weather", arguments='{"city": "Paris"}'),
        ToolCallPart(id="call_2", name="clock", arguments=""),
    ])
    messages = [SystemMessage(content="be brief"), UserMessage(content="weather?"), assistant,
                ToolResultMessage(call_id="call_1", name="weather", content="sunny"),
                ToolResultMessage(call_id="call_2", name="clock", content="noon", status="error")]
    wire = payload(messages=messages, tools=[WEATHER])["messages"]
    assert wire == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "weather", "arguments": '{"city": "Paris"}'}},
            {"id": "call_2", "type": "function", "function": {"name": "clock", "arguments": "{}"}},
        ]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": "noon"},
    ]


def test_assistant_content_is_null_only_beside_tool_calls() -> None:
    calls_only = AssistantMessage(parts=[ToolCallPart(id="c", name="f", arguments="{}")])
    empty = AssistantMessage(parts=[ReasoningPart(text="hmm")])
    wire = payload(messages=[*HI, calls_only, empty])["messages"]
    assert wire[1]["content"] is None and wire[1]["tool_calls"]
    assert wire[2] == {"role": "assistant", "content": ""}


def test_servers_that_refuse_null_content_get_an_empty_string_beside_tool_calls() -> None:
    calls_only = AssistantMessage(parts=[ToolCallPart(id="c", name="f", arguments="{}")])
    for cfg in (config(null_assistant_content=False), provider_from_preset("llama-cpp-python"),
                provider_from_preset("builtin")):
        wire = payload(cfg, messages=[*HI, calls_only])["messages"]
        assert wire[1]["content"] == "" and wire[1]["tool_calls"][0]["id"] == "c"


def test_required_is_sent_by_name_where_the_server_ignores_required() -> None:
    ignores = provider_from_preset("llama-cpp-python")
    assert payload(ignores, tools=[WEATHER], tool_choice="required")["tool_choice"] == {
        "type": "function", "function": {"name": "weather"}}
    clock = ToolSpec(name="clock", description="Time", parameters={"type": "object", "properties": {}})
    # with several tools no single name says "any of them": sent as asked
    assert payload(ignores, tools=[WEATHER, clock], tool_choice="required")["tool_choice"] == "required"
    assert payload(tools=[WEATHER], tool_choice="required")["tool_choice"] == "required"


def test_reasoning_details_are_echoed_back_and_reasoning_text_is_not() -> None:
    details = [{"type": "reasoning.text", "text": "hmm", "signature": "sig", "index": 0}]
    assistant = AssistantMessage(parts=[ReasoningPart(text="hmm", details=details), TextPart(text="4")])
    wire = payload(messages=[*HI, assistant, UserMessage(content="and 3+3?")])["messages"]
    assert wire[1] == {"role": "assistant", "content": "4", "reasoning_details": details}


def test_reasoning_content_echoed_only_where_required() -> None:
    assistant = AssistantMessage(parts=[ReasoningPart(text="let me think"),
                                        ToolCallPart(id="c", name="weather", arguments="{}")])
    messages = [*HI, assistant, ToolResultMessage(call_id="c", name="weather", content="sunny")]
    deepseek = payload(provider_from_preset("deepseek"), messages=messages)["messages"]
    assert deepseek[1]["reasoning_content"] == "let me think"
    assert "reasoning_content" not in payload(messages=messages)["messages"][1]


def test_recorded_openrouter_answer_round_trips_into_the_next_request() -> None:
    """A parsed real answer (reasoning details + tool call) goes back exactly as the provider sent it."""
    key = "openrouter/chat-reasoning-tool-call-claude-haiku-4.5.sse"
    pf.require()
    events = read_pieces(ChatChunkReader("openrouter"), SSEFrames(), [pf.body(key)]).events
    final = events[-1]
    assert isinstance(final, ResponseComplete)
    message = final.message
    exp = pf.entry(key)["expected"]
    [call] = message.tool_calls
    messages = [*HI, message, ToolResultMessage(call_id=call.id, name=call.name, content="72F")]
    wire = payload(provider_from_preset("openrouter"), model=exp["model"], messages=messages)["messages"]
    assistant = wire[1]
    assert assistant["reasoning_details"] == exp["reasoning_details_merged"]
    [wire_call] = assistant["tool_calls"]
    want = exp["tool_calls"][0]
    assert wire_call == {"id": want["id"], "type": "function",
                         "function": {"name": want["name"], "arguments": want["arguments"] or "{}"}}
    assert wire[2] == {"role": "tool", "tool_call_id": want["id"], "content": "72F"}
