"""The Cohere v2 chat adapter: payload, the two-step tool round trip with the parameterless-tool quirk, and
failures. Its recorded streams are run by test_recorded_streams.py (skipped when ../shared is absent)."""

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
from orchestration.providers.cohere import CohereAdapter, build_payload
from orchestration.tool_api import ToolSpec
from tests.support import provider_fixtures as pf
from tests.support.adapter_requests import HI, payload_maker, preset_config
from tests.support.adapter_runs import collect
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.provider_wire import cohere_events, cohere_stream
from tools import default_registry

STREAMS = pf.keys("cohere-v2-chat-stream")
PATH = "/v2/chat"
WEATHER = ToolSpec(name="weather", description="Weather", parameters={"type": "object", "properties": {}})
TIME = ToolSpec(name="time", description="Time", parameters={"type": "object", "properties": {}})


def config(base_url: str = "http://x") -> Any:
    return preset_config("cohere", base_url)


payload = payload_maker(build_payload, config, "command-a-03-2025")


# --- recorded streams ----------------------------------------------------------------------------------

def test_all_cohere_fixtures_are_found() -> None:
    pf.require()
    assert len(STREAMS) == 4


# --- payload -------------------------------------------------------------------------------------------

def test_payload_tools_choice_thinking_and_format() -> None:
    body = payload(messages=[SystemMessage(content="sys"), *HI], tools=[WEATHER, TIME], max_output_tokens=10,
                   response_format={"type": "json_object"})
    assert body["messages"][0] == {"role": "system", "content": "sys"}
    assert [t["function"]["name"] for t in body["tools"]] == ["weather", "time"]
    assert "tool_choice" not in body and body["max_tokens"] == 10
    assert body["response_format"] == {"type": "json_object"}
    assert payload(tools=[WEATHER], tool_choice="required")["tool_choice"] == "REQUIRED"
    assert payload(tools=[WEATHER], tool_choice="none")["tool_choice"] == "NONE"
    named = payload(tools=[WEATHER, TIME], tool_choice=NamedToolChoice(name="time"))
    assert [t["function"]["name"] for t in named["tools"]] == ["time"] and named["tool_choice"] == "REQUIRED"
    reasoning = payload(model="command-a-reasoning-08-2025", reasoning_effort="medium")
    assert reasoning["thinking"] == {"type": "enabled", "token_budget": 4096}
    assert "thinking" not in payload(reasoning_effort="medium")


def test_history_with_plan_calls_and_results() -> None:
    assistant = AssistantMessage(parts=[ReasoningPart(text="I will look.", provider_format="cohere-tool-plan"),
                                        ToolCallPart(id="w_1", name="weather", arguments="null"),
                                        ToolCallPart(id="w_2", name="time", arguments="")])
    answer = AssistantMessage(parts=[ReasoningPart(text="easy", provider_format="cohere"), TextPart(text="Done.")])
    body = payload(messages=[*HI, assistant, ToolResultMessage(call_id="w_1", name="weather", content="rain"),
                             ToolResultMessage(call_id="w_2", name="time", content="noon"), answer])
    assert body["messages"][1:] == [
        {"role": "assistant", "tool_plan": "I will look.", "tool_calls": [
            {"id": "w_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}},
            {"id": "w_2", "type": "function", "function": {"name": "time", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "w_1", "content": "rain"},
        {"role": "tool", "tool_call_id": "w_2", "content": "noon"},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": "easy"},
                                          {"type": "text", "text": "Done."}]},
    ]


# --- the two-step round trip ---------------------------------------------------------------------------

def cohere_model(request: Request) -> Response | None:
    """Plans, calls the parameterless `get_current_time` (arguments "null") and `calculate`, then answers."""
    if not any(m["role"] == "tool" for m in request.json["messages"]):
        return cohere_stream(plan="I will check the time and compute.",
                             calls=[("time_1", "get_current_time", "null"),
                                    ("calc_1", "calculate", '{"expression": "6*7"}')])
    return cohere_stream(text="Done: 42.")


async def test_two_step_tool_round_trip_with_null_arguments() -> None:
    async with LoopbackServer(handler=cohere_model) as server:
        events: list[RunEvent] = []
        loop = RunLoop(CohereAdapter(config(server.url)), default_registry(), events.append)
        result = await loop.run(RunRequest(model="command-a-03-2025", messages=[UserMessage(content="time? 6*7?")],
                                           tool_names=["get_current_time", "calculate"]))
        _, second = (r.json for r in server.requests)
    assert result.finish_reason == "stop" and result.answer == "Done: 42."
    calls = [c for e in events if e.type == "tool_calls" for c in e.calls]
    assert [(c.id, c.arguments) for c in calls] == [("time_1", "{}"), ("calc_1", '{"expression": "6*7"}')]
    statuses = {e.id: e.status for e in events if e.type == "tool_result"}
    assert statuses == {"time_1": "ok", "calc_1": "ok"}  # "null" ran as a call without arguments
    assert second["messages"][1] == {"role": "assistant", "tool_plan": "I will check the time and compute.",
                                     "tool_calls": [
                                         {"id": "time_1", "type": "function",
                                          "function": {"name": "get_current_time", "arguments": "{}"}},
                                         {"id": "calc_1", "type": "function",
                                          "function": {"name": "calculate", "arguments": '{"expression": "6*7"}'}}]}
    assert [(m["role"], m["tool_call_id"]) for m in second["messages"][2:]] == [("tool", "time_1"),
                                                                               ("tool", "calc_1")]
    assert "42" in second["messages"][3]["content"]


# --- failures ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("reason", ["ERROR", "TIMEOUT"])
async def test_failed_finish_reason_is_an_error(reason: str, loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, cohere_stream(text="Some", finish=reason))
    outcome = await collect(CohereAdapter(config(loopback.url)))
    assert outcome.error is not None and outcome.error.code == "stream_error"
    assert reason in outcome.error.message and outcome.error.partial is not None
    assert outcome.error.partial.text == "Some"


async def test_stream_without_message_end(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.sse(cohere_events(text="Half", end=False)))
    outcome = await collect(CohereAdapter(config(loopback.url)))
    assert outcome.error is not None and outcome.error.partial is not None
    assert outcome.error.partial.text == "Half"


async def test_non_streamed_answer(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.json({
        "id": "c1", "finish_reason": "TOOL_CALL",
        "message": {"role": "assistant", "tool_plan": "plan", "content": [],
                    "tool_calls": [{"id": "t1", "type": "function",
                                    "function": {"name": "weather", "arguments": "null"}}]},
        "usage": {"tokens": {"input_tokens": 3, "output_tokens": 4}}}))
    outcome = await collect(CohereAdapter(config(loopback.url)), ModelRequest(model="m", messages=HI, stream=False))
    done = outcome.complete
    assert (done.message.reasoning, done.finish_reason) == ("plan", "tool_calls")
    assert [(c.id, c.arguments) for c in done.message.tool_calls] == [("t1", "{}")]


def test_adapter_for_picks_the_cohere_adapter() -> None:
    assert isinstance(adapter_for(config()), CohereAdapter)
