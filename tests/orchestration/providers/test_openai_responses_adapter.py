"""The Responses adapter: payload, state (previous_response_id, full-history fallback), the two-step tool
round trip with reasoning items, and failures."""

from __future__ import annotations

from typing import Any

import pytest

from orchestration.engine import ModelRequest, NamedToolChoice
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
from orchestration.providers.config import Capabilities
from orchestration.providers.openai_responses import OpenAIResponsesAdapter, build_payload
from orchestration.providers.presets import provider_from_preset
from orchestration.tool_api import ToolSpec
from tests.support.adapter_requests import HI, payload_maker
from tests.support.adapter_runs import collect
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.provider_wire import responses_events, responses_stream
from tools import default_registry

PATH = "/v1/responses"
WEATHER = ToolSpec(name="weather", description="Weather", parameters={"type": "object", "properties": {}})


def config(base_url: str = "http://x/v1", *, stateful: bool = True) -> Any:
    cfg = provider_from_preset("openai-responses", base_url=base_url, api_key="test-key-not-real")
    if not stateful:
        cfg = cfg.model_copy(update={"capabilities": cfg.capabilities.model_copy(update={"server_state": False})})
    return cfg


payload = payload_maker(build_payload, config, "gpt-5")


def stored_turn(response_id: str = "resp_1", provider: str = "openai-responses", store: bool = True,
                ) -> AssistantMessage:
    return AssistantMessage(
        response_id=response_id, provider_data={"openai-responses": {"store": store, "provider": provider}},
        parts=[ReasoningPart(text="plan", provider_format="openai-responses",
                             details=[{"id": "rs_1", "type": "reasoning", "summary": [], "status": "completed",
                                       "encrypted_content": "ENC"}]),
               TextPart(text="Checking."),
               ToolCallPart(id="call_1", name="weather", arguments='{"city": "Oslo"}', opaque={"item_id": "fc_1"})])


# --- payload -------------------------------------------------------------------------------------------

def test_payload_basics() -> None:
    body = payload(messages=[SystemMessage(content="Be brief."), *HI], tools=[WEATHER], parallel_tool_calls=False,
                   reasoning_effort="low", max_output_tokens=64)
    assert body["instructions"] == "Be brief."
    assert body["input"] == [{"role": "user", "content": "hi"}]
    assert body["tools"] == [{"type": "function", "name": "weather", "description": "Weather",
                              "parameters": WEATHER.parameters, "strict": False}]
    assert (body["tool_choice"], body["parallel_tool_calls"]) == ("auto", False)
    assert body["reasoning"] == {"effort": "low", "summary": "auto"}
    assert (body["max_output_tokens"], body["store"], body["stream"]) == (64, True, True)
    assert "include" not in body and "previous_response_id" not in body
    assert payload(tools=[WEATHER], tool_choice=NamedToolChoice(name="weather"))["tool_choice"] == {
        "type": "function", "name": "weather"}
    assert "reasoning" not in payload(model="gpt-4o", reasoning_effort="low")
    schema = {"type": "json_schema", "json_schema": {"name": "n", "schema": {"type": "object"}, "strict": True}}
    assert payload(response_format=schema)["text"] == {"format": {"type": "json_schema", "name": "n",
                                                                  "schema": {"type": "object"}, "strict": True}}


def test_stateful_continuation_sends_only_the_new_input() -> None:
    messages = [SystemMessage(content="sys"), *HI, stored_turn(),
                ToolResultMessage(call_id="call_1", name="weather", content="rain")]
    body = payload(messages=messages)
    assert body["previous_response_id"] == "resp_1"
    assert body["instructions"] == "sys"
    assert body["input"] == [{"type": "function_call_output", "call_id": "call_1", "output": "rain"}]


@pytest.mark.parametrize("turn", [stored_turn(provider="someone-else"), stored_turn(store=False),
                                  stored_turn(response_id=None)])  # type: ignore[arg-type]
def test_turns_the_provider_did_not_keep_are_sent_in_full(turn: AssistantMessage) -> None:
    body = payload(messages=[*HI, turn])
    assert "previous_response_id" not in body
    assert len(body["input"]) == 4


def test_stateless_provider_gets_full_history_with_reasoning_items() -> None:
    messages = [*HI, stored_turn(store=False), ToolResultMessage(call_id="call_1", name="weather", content="rain")]
    body = payload(config(stateful=False), messages=messages)
    assert "previous_response_id" not in body and body["store"] is False
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["input"] == [
        {"role": "user", "content": "hi"},
        {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "ENC"},
        {"role": "assistant", "content": "Checking."},
        {"type": "function_call", "call_id": "call_1", "name": "weather", "arguments": '{"city": "Oslo"}',
         "id": "fc_1"},
        {"type": "function_call_output", "call_id": "call_1", "output": "rain"},
    ]


def test_reasoning_items_without_encrypted_content_are_dropped_when_not_stored() -> None:
    turn = stored_turn(store=False)
    turn.parts[0].details[0].pop("encrypted_content")  # type: ignore[union-attr]
    body = payload(config(stateful=False), messages=[*HI, turn])
    assert [i.get("type") for i in body["input"]] == [None, None, "function_call"]


# --- round trips ---------------------------------------------------------------------------------------

def responses_calculator(request: Request) -> Response | None:
    body = request.json
    if not any(item.get("type") == "function_call_output" for item in body["input"]):
        return responses_stream(summary=["Need a sum.", "Use the tool."], text="On it.",
                                calls=[("call_a", "calculate", {"expression": "6*7"})],
                                store=body["store"], response_id="resp_first")
    return responses_stream(text="It is 42.", response_id="resp_second", store=body["store"])


@pytest.mark.parametrize("stateful", [True, False])
async def test_two_step_tool_round_trip(stateful: bool) -> None:
    async with LoopbackServer(handler=responses_calculator) as server:
        loop = RunLoop(OpenAIResponsesAdapter(config(server.url + "/v1", stateful=stateful)), default_registry(),
                       lambda event: None)
        result = await loop.run(RunRequest(model="gpt-5", messages=[UserMessage(content="6*7?")],
                                           tool_names=["calculate"], reasoning_effort="low"))
        first, second = (r.json for r in server.requests)
    assert result.finish_reason == "stop" and result.answer == "It is 42."
    assert first["reasoning"] == {"effort": "low", "summary": "auto"}
    output = second["input"][-1]
    assert output["type"] == "function_call_output" and output["call_id"] == "call_a" and "42" in output["output"]
    if stateful:
        assert second["previous_response_id"] == "resp_first"
        assert second["input"] == [output]
    else:
        assert "previous_response_id" not in second
        assert second["input"][:-1] == [
            {"role": "user", "content": "6*7?"},
            {"id": "rs_1", "type": "reasoning", "encrypted_content": "ENC",
             "summary": [{"type": "summary_text", "text": "Need a sum."},
                         {"type": "summary_text", "text": "Use the tool."}]},
            {"role": "assistant", "content": "On it."},
            {"type": "function_call", "call_id": "call_a", "name": "calculate",
             "arguments": '{"expression": "6*7"}', "id": "fc_call_a"}]
    reasoning = next(m for m in result.new_messages if isinstance(m, AssistantMessage)).reasoning
    assert reasoning == "Need a sum.\n\nUse the tool."


async def test_lost_previous_response_falls_back_to_full_history(loopback: LoopbackServer) -> None:
    lost = {"error": {"message": "Previous response with id 'resp_1' not found.", "type": "invalid_request_error",
                      "param": "previous_response_id", "code": "previous_response_not_found"}}
    loopback.add("POST", PATH, Response.json(lost, status=400), responses_stream(text="Fine."))
    messages = [*HI, stored_turn(), ToolResultMessage(call_id="call_1", name="weather", content="rain")]
    outcome = await collect(OpenAIResponsesAdapter(config(loopback.url + "/v1")),
                            ModelRequest(model="gpt-5", messages=messages))
    assert outcome.complete.message.text == "Fine."
    first, second = (r.json for r in loopback.requests)
    assert first["previous_response_id"] == "resp_1" and len(first["input"]) == 1
    assert "previous_response_id" not in second and len(second["input"]) == 5


async def test_other_400s_are_not_retried_without_state(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.json({"error": {"message": "bad model"}}, status=400))
    outcome = await collect(OpenAIResponsesAdapter(config(loopback.url + "/v1")),
                            ModelRequest(model="gpt-5", messages=[*HI, stored_turn()]))
    assert outcome.error is not None and outcome.error.status == 400 and loopback.count == 1


# --- failures and other shapes -------------------------------------------------------------------------

async def test_response_failed_is_a_stream_error(loopback: LoopbackServer) -> None:
    events = responses_events(text="Partial", end=None)
    events.append(("response.failed", {"type": "response.failed", "response": {
        "id": "resp_test", "status": "failed", "error": {"code": "server_error", "message": "Something broke."}}}))
    loopback.add("POST", PATH, Response.sse(events))
    outcome = await collect(OpenAIResponsesAdapter(config(loopback.url + "/v1")))
    assert outcome.error is not None and outcome.error.code == "stream_error"
    assert "Something broke." in outcome.error.message and "Try again later." in outcome.error.message
    assert outcome.error.partial is not None and outcome.error.partial.text == "Partial"


async def test_incomplete_response_finishes_with_length(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, responses_stream(text="Cut short", end="response.incomplete"))
    done = (await collect(OpenAIResponsesAdapter(config(loopback.url + "/v1")))).complete
    assert done.finish_reason == "length" and done.native_finish_reason == "max_output_tokens"


async def test_non_streamed_response(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.json({
        "id": "resp_9", "model": "gpt-5", "status": "completed", "store": True,
        "output": [{"type": "reasoning", "id": "rs_9", "summary": [{"type": "summary_text", "text": "a"},
                                                                  {"type": "summary_text", "text": "b"}]},
                   {"type": "message", "content": [{"type": "output_text", "text": "Hello"}]},
                   {"type": "function_call", "id": "fc_9", "call_id": "call_9", "name": "weather",
                    "arguments": "{}"}],
        "usage": {"input_tokens": 1, "output_tokens": 2}}))
    outcome = await collect(OpenAIResponsesAdapter(config(loopback.url + "/v1")),
                            ModelRequest(model="gpt-5", messages=HI, stream=False))
    done = outcome.complete
    assert (done.message.text, done.message.reasoning, done.finish_reason) == ("Hello", "a\n\nb", "tool_calls")
    assert done.message.tool_calls[0].opaque == {"item_id": "fc_9"}
    assert "stream" not in loopback.requests[0].json


def test_adapter_for_and_capabilities() -> None:
    adapter = adapter_for(config())
    assert isinstance(adapter, OpenAIResponsesAdapter)
    assert isinstance(adapter.capabilities, Capabilities) and adapter.capabilities.server_state
