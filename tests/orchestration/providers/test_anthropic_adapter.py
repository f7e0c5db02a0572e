"""The Anthropic adapter: what it sends (payload), the two-step tool round trip, errors and cut-off streams."""

from __future__ import annotations

from typing import Any

import pytest

from orchestration.engine import ModelRequest, NamedToolChoice
from orchestration.events import RunEvent
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import (
    AssistantMessage,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)
from orchestration.providers import adapter_for
from orchestration.providers.anthropic import AnthropicAdapter, build_payload
from orchestration.tool_api import ToolSpec
from tests.support.adapter_requests import HI, payload_maker, preset_config
from tests.support.adapter_runs import collect
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.provider_wire import anthropic_events, anthropic_stream
from tools import default_registry

PATH = "/v1/messages"
WEATHER = ToolSpec(name="weather", description="Weather for a city",
                   parameters={"type": "object", "properties": {"city": {"type": "string"}}})


def config(base_url: str = "http://x/v1") -> Any:
    return preset_config("anthropic", base_url)


payload = payload_maker(build_payload, config, "claude-sonnet-4")


# --- payload -------------------------------------------------------------------------------------------

def test_minimal_payload_has_max_tokens_and_stream() -> None:
    assert payload() == {"model": "claude-sonnet-4", "max_tokens": 8192, "stream": True,
                         "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}


def test_system_prompt_and_tools_are_marked_for_caching() -> None:
    body = payload(messages=[SystemMessage(content="Be brief."), *HI], tools=[WEATHER, WEATHER.model_copy(
        update={"name": "time"})])
    assert body["system"] == [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    assert [t["name"] for t in body["tools"]] == ["weather", "time"]
    assert body["tools"][0] == {"name": "weather", "description": "Weather for a city",
                                "input_schema": WEATHER.parameters}
    assert body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert all(m["role"] != "system" for m in body["messages"])


@pytest.mark.parametrize(("choice", "wire"), [
    ("auto", {"type": "auto"}),
    ("required", {"type": "any"}),
    ("none", {"type": "none"}),
    (NamedToolChoice(name="weather"), {"type": "tool", "name": "weather"}),
])
def test_tool_choice(choice: Any, wire: dict[str, Any]) -> None:
    assert payload(tools=[WEATHER], tool_choice=choice)["tool_choice"] == wire


def test_parallel_off_sets_disable_parallel_tool_use() -> None:
    assert payload(tools=[WEATHER], parallel_tool_calls=False)["tool_choice"] == {
        "type": "auto", "disable_parallel_tool_use": True}
    assert "disable_parallel_tool_use" not in payload(tools=[WEATHER], parallel_tool_calls=True)["tool_choice"]
    assert payload(tools=[WEATHER], tool_choice="none", parallel_tool_calls=False)["tool_choice"] == {
        "type": "none"}
    assert "tool_choice" not in payload(parallel_tool_calls=False)  # no tools, no choice


def test_thinking_budget_from_reasoning_effort() -> None:
    body = payload(reasoning_effort="medium", temperature=0.3)
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192}
    assert body["max_tokens"] == 8192 + 8192  # room for the answer beside the budget
    assert "temperature" not in body  # thinking accepts only the default temperature
    capped = payload(reasoning_effort="high", max_output_tokens=4000)
    assert capped["thinking"]["budget_tokens"] == 3999 and capped["max_tokens"] == 4000
    assert "thinking" not in payload(reasoning_effort="high", max_output_tokens=1000)  # under the minimum
    assert "thinking" not in payload(reasoning_effort="high", tools=[WEATHER], tool_choice="required")
    assert "thinking" not in payload(model="claude-3-5-haiku-latest", reasoning_effort="high")
    assert payload(temperature=0.3)["temperature"] == 0.3


def test_history_thinking_first_then_text_and_tools_then_results_in_one_user_message() -> None:
    assistant = AssistantMessage(parts=[
        TextPart(text="\n\n"),
        ReasoningPart(text="plan", signature="SIG", provider_format="anthropic"),
        ReasoningPart(encrypted="REDACTED", provider_format="anthropic"),
        ReasoningPart(text="from another provider"),
        TextPart(text="Checking."),
        ToolCallPart(id="toolu_1", name="weather", arguments='{"city": "Oslo"}'),
        ToolCallPart(id="toolu_2", name="time", arguments=""),
    ])
    body = payload(messages=[*HI, assistant,
                             ToolResultMessage(call_id="toolu_1", name="weather", content="rain"),
                             ToolResultMessage(call_id="toolu_2", name="time", content="boom", status="error"),
                             UserMessage(content="and tomorrow?")])
    assert body["messages"][1:] == [
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "plan", "signature": "SIG"},
            {"type": "redacted_thinking", "data": "REDACTED"},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}},
            {"type": "tool_use", "id": "toolu_2", "name": "time", "input": {}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "rain"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "boom", "is_error": True},
            {"type": "text", "text": "and tomorrow?"}]},
    ]


# --- the two-step round trip ---------------------------------------------------------------------------

def anthropic_calculator(request: Request) -> Response | None:
    """Plays Claude: thinks, calls `calculate` twice in parallel, then answers from the results."""
    messages = request.json["messages"]
    if len(messages) == 1:
        return anthropic_stream(thinking="I should compute both.", signature="SIG-abc", text="Computing.",
                                calls=[("toolu_a", "calculate", {"expression": "6*7"}),
                                       ("toolu_b", "calculate", {"expression": "2+2"})])
    return anthropic_stream(text="42 and 4.", message_id="msg_second")


async def test_two_step_tool_round_trip() -> None:
    async with LoopbackServer(handler=anthropic_calculator) as server:
        events: list[RunEvent] = []
        loop = RunLoop(AnthropicAdapter(config(server.url + "/v1")), default_registry(), events.append)
        result = await loop.run(RunRequest(model="claude-sonnet-4", messages=[UserMessage(content="6*7, 2+2?")],
                                           tool_names=["calculate"], reasoning_effort="low"))
        first, second = (r.json for r in server.requests)
    assert result.finish_reason == "stop" and result.answer == "42 and 4."
    assert first["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    # parallel tool calls are off by default for Anthropic
    assert first["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    assert second["messages"][0] == first["messages"][0]
    assert second["messages"][1] == {"role": "assistant", "content": [
        {"type": "thinking", "thinking": "I should compute both.", "signature": "SIG-abc"},
        {"type": "text", "text": "Computing."},
        {"type": "tool_use", "id": "toolu_a", "name": "calculate", "input": {"expression": "6*7"}},
        {"type": "tool_use", "id": "toolu_b", "name": "calculate", "input": {"expression": "2+2"}}]}
    results = second["messages"][2]
    assert results["role"] == "user" and len(second["messages"]) == 3
    assert [(b["type"], b["tool_use_id"]) for b in results["content"]] == [("tool_result", "toolu_a"),
                                                                          ("tool_result", "toolu_b")]
    assert "42" in results["content"][0]["content"] and "4" in results["content"][1]["content"]
    assert [e.type for e in events].count("reasoning") >= 1


# --- stream shapes and failures ------------------------------------------------------------------------

async def test_error_frame_mid_stream_keeps_partial_text(loopback: LoopbackServer) -> None:
    events = anthropic_events(text="Half an ans", end=False)[:-1]  # drop message_delta too
    events.append(("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}))
    loopback.add("POST", PATH, Response.sse(events))
    outcome = await collect(AnthropicAdapter(config(loopback.url + "/v1")))
    error = outcome.error
    assert error is not None and error.code == "stream_error"
    assert "Anthropic reported an error during the answer: Overloaded" in error.message
    assert "try again shortly" in error.message
    assert error.partial is not None and error.partial.text == "Half an ans"
    assert loopback.count == 1  # output had started: never re-sent


async def test_stream_without_message_stop_is_an_error(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.sse(anthropic_events(text="So far", end=False)))
    outcome = await collect(AnthropicAdapter(config(loopback.url + "/v1")))
    assert outcome.error is not None and "ended before the answer was complete" in outcome.error.message
    assert outcome.error.partial is not None and outcome.error.partial.text == "So far"
    assert outcome.text == "So far"


async def test_non_streamed_message(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.json({
        "id": "msg_1", "type": "message", "model": "claude-x", "stop_reason": "tool_use",
        "content": [{"type": "thinking", "thinking": "hm", "signature": "S"}, {"type": "text", "text": "Sure."},
                    {"type": "tool_use", "id": "toolu_9", "name": "weather", "input": {"city": "Rome"}}],
        "usage": {"input_tokens": 3, "output_tokens": 4}}))
    outcome = await collect(AnthropicAdapter(config(loopback.url + "/v1")),
                            ModelRequest(model="m", messages=HI, stream=False))
    done = outcome.complete
    assert "stream" not in loopback.requests[0].json
    assert (done.message.text, done.message.reasoning, done.finish_reason) == ("Sure.", "hm", "tool_calls")
    assert [(c.id, c.arguments) for c in done.message.tool_calls] == [("toolu_9", '{"city": "Rome"}')]
    assert done.message.parts[0].signature == "S"  # type: ignore[union-attr]


def test_adapter_for_picks_the_anthropic_adapter() -> None:
    assert isinstance(adapter_for(config()), AnthropicAdapter)
    assert adapter_for(config()).capabilities.parallel_tool_calls_default is False
