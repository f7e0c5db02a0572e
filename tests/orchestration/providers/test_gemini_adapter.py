"""The Gemini adapter: what it sends, the two-step tool round trip with thought signatures, and failures."""

from __future__ import annotations

import json
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
from orchestration.providers.gemini import GeminiAdapter, build_payload, gemini_schema
from orchestration.tool_api import ToolSpec
from tests.support.adapter_requests import HI, payload_maker, preset_config
from tests.support.adapter_runs import collect
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.provider_wire import gemini_chunks, gemini_stream
from tools import default_registry

WEATHER = ToolSpec(name="weather", description="Weather for a city",
                   parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
                               "additionalProperties": False})
PATH = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"


def config(base_url: str = "http://x/v1beta") -> Any:
    return preset_config("gemini", base_url)


payload = payload_maker(build_payload, config, "gemini-2.5-flash")


def test_payload_with_system_tools_and_thinking() -> None:
    body = payload(messages=[SystemMessage(content="Be brief."), *HI], tools=[WEATHER], max_output_tokens=50,
                   temperature=0.1, reasoning_effort="low")
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert body["tools"] == [{"functionDeclarations": [{
        "name": "weather", "description": "Weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]}]
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "AUTO"}}
    assert body["generationConfig"] == {"maxOutputTokens": 50, "temperature": 0.1,
                                        "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 1024}}


def test_thinking_config_per_model_family() -> None:
    assert payload(model="gemini-3-pro-preview", reasoning_effort="high")["generationConfig"] == {
        "thinkingConfig": {"includeThoughts": True, "thinkingLevel": "high"}}
    assert payload()["generationConfig"] == {"thinkingConfig": {"includeThoughts": True}}
    assert "generationConfig" not in payload(model="gemini-2.0-flash", reasoning_effort="high")


@pytest.mark.parametrize(("choice", "wire"), [
    ("required", {"mode": "ANY"}),
    ("none", {"mode": "NONE"}),
    (NamedToolChoice(name="weather"), {"mode": "ANY", "allowedFunctionNames": ["weather"]}),
])
def test_tool_choice(choice: Any, wire: dict[str, Any]) -> None:
    assert payload(tools=[WEATHER], tool_choice=choice)["toolConfig"] == {"functionCallingConfig": wire}


def test_response_format_becomes_a_response_schema() -> None:
    schema = {"type": "object", "properties": {"n": {"type": ["integer", "null"]}}, "additionalProperties": False}
    body = payload(response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": schema}})
    assert body["generationConfig"]["responseMimeType"] == "application/json"
    assert body["generationConfig"]["responseSchema"] == {
        "type": "object", "properties": {"n": {"type": "integer", "nullable": True}}}


def test_gemini_schema_inlines_refs_and_drops_unknown_keywords() -> None:
    schema = {"$schema": "x", "type": "object", "$defs": {"City": {"type": "object", "title": "City",
                                                                   "properties": {"name": {"type": "string"}}}},
              "properties": {"city": {"$ref": "#/$defs/City", "description": "where"},
                             "tags": {"type": "array", "items": {"type": "string", "const": "a"}}}}
    assert gemini_schema(schema) == {"type": "object", "properties": {
        "city": {"type": "object", "title": "City", "properties": {"name": {"type": "string"}},
                 "description": "where"},
        "tags": {"type": "array", "items": {"type": "string"}}}}


def test_history_sends_signatures_back_and_only_gemini_ids() -> None:
    assistant = AssistantMessage(
        parts=[ReasoningPart(text="thinking"), TextPart(text="Let me look."),
               ToolCallPart(id="call_assigned", name="weather", arguments='{"city": "Oslo"}',
                            opaque={"thought_signature": "SIG1"}),
               ToolCallPart(id="g-id-2", name="weather", arguments='{"city": "Rome"}',
                            opaque={"gemini_id": "g-id-2"})],
        provider_data={"gemini": {"text_signature": "TSIG"}})
    body = payload(messages=[*HI, assistant,
                             ToolResultMessage(call_id="call_assigned", name="weather", content="rain"),
                             ToolResultMessage(call_id="g-id-2", name="weather", content="no", status="error"),
                             UserMessage(content="thanks")])
    assert body["contents"][1:] == [
        {"role": "model", "parts": [
            {"text": "Let me look.", "thoughtSignature": "TSIG"},
            {"functionCall": {"name": "weather", "args": {"city": "Oslo"}}, "thoughtSignature": "SIG1"},
            {"functionCall": {"name": "weather", "args": {"city": "Rome"}, "id": "g-id-2"}}]},
        {"role": "user", "parts": [
            {"functionResponse": {"name": "weather", "response": {"result": "rain"}}},
            {"functionResponse": {"name": "weather", "response": {"error": "no"}, "id": "g-id-2"}},
            {"text": "thanks"}]},
    ]


# --- the two-step round trip ---------------------------------------------------------------------------

def gemini_calculator(request: Request) -> Response | None:
    """Plays Gemini: thinks, calls `calculate` twice in one chunk (no ids, a signature), then answers."""
    contents = request.json["contents"]
    if len(contents) == 1:
        return gemini_stream(thought="Two sums.", calls=[(None, "calculate", {"expression": "6*7"}),
                                                         (None, "calculate", {"expression": "2+2"})],
                             signature="SIG-gemini")
    return gemini_stream(text="42 and 4.")


async def test_two_step_tool_round_trip() -> None:
    async with LoopbackServer(handler=gemini_calculator) as server:
        events: list[RunEvent] = []
        loop = RunLoop(GeminiAdapter(config(server.url + "/v1beta")), default_registry(), events.append)
        result = await loop.run(RunRequest(model="gemini-2.5-flash", messages=[UserMessage(content="sums?")],
                                           tool_names=["calculate"]))
        first, second = (r.json for r in server.requests)
    assert result.finish_reason == "stop" and result.answer == "42 and 4."
    assert first["generationConfig"]["thinkingConfig"] == {"includeThoughts": True}
    model_turn, results_turn = second["contents"][1:]
    assert model_turn == {"role": "model", "parts": [
        {"functionCall": {"name": "calculate", "args": {"expression": "6*7"}}, "thoughtSignature": "SIG-gemini"},
        {"functionCall": {"name": "calculate", "args": {"expression": "2+2"}}}]}
    assert results_turn["role"] == "user"
    responses = [p["functionResponse"] for p in results_turn["parts"]]
    assert [r["name"] for r in responses] == ["calculate", "calculate"]
    assert "42" in responses[0]["response"]["result"] and "4" in responses[1]["response"]["result"]
    calls = [e for e in events if e.type == "tool_calls"]
    assert len({c.calls[0].id for c in calls}) == 2  # assigned ids are distinct


# --- stream shapes and failures ------------------------------------------------------------------------

async def test_json_array_stream_and_non_streamed_answer(loopback: LoopbackServer) -> None:
    chunks = gemini_chunks(text="Hello there")
    body = ("[" + "\n,\r\n".join(json.dumps(c, indent=2) for c in chunks) + "]").encode()
    loopback.add("POST", PATH, Response.body(body, "application/json; charset=UTF-8", chunk_size=7))
    outcome = await collect(GeminiAdapter(config(loopback.url + "/v1beta")),
                            ModelRequest(model="gemini-2.5-flash", messages=HI))
    assert outcome.complete.message.text == "Hello there"
    loopback.add("POST", "/v1beta/models/gemini-2.5-flash:generateContent", Response.json(chunks[-1]))
    whole = await collect(GeminiAdapter(config(loopback.url + "/v1beta")),
                          ModelRequest(model="gemini-2.5-flash", messages=HI, stream=False))
    assert whole.complete.finish_reason == "stop"
    assert loopback.requests[-1].target == "/v1beta/models/gemini-2.5-flash:generateContent"


async def test_stream_without_finish_reason_keeps_partial_text(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, gemini_stream(text="Partial answ", finish=None))
    outcome = await collect(GeminiAdapter(config(loopback.url + "/v1beta")),
                            ModelRequest(model="gemini-2.5-flash", messages=HI))
    assert outcome.error is not None and outcome.error.code == "stream_error"
    assert outcome.error.partial is not None and outcome.error.partial.text == "Partial answ"


async def test_error_chunk_mid_stream(loopback: LoopbackServer) -> None:
    error = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    body = b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n"
                    for c in [*gemini_chunks(text="Some", finish=None)[:-1], error])
    loopback.add("POST", PATH, Response.body(body, "text/event-stream"))
    outcome = await collect(GeminiAdapter(config(loopback.url + "/v1beta")),
                            ModelRequest(model="gemini-2.5-flash", messages=HI))
    assert outcome.error is not None and outcome.error.status == 503
    assert "The model is overloaded." in outcome.error.message
    assert outcome.error.partial is not None and outcome.error.partial.text == "Some"


async def test_blocked_prompt_finishes_as_content_filter(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.sse([{"promptFeedback": {"blockReason": "SAFETY"}, "responseId": "r"}]))
    outcome = await collect(GeminiAdapter(config(loopback.url + "/v1beta")),
                            ModelRequest(model="gemini-2.5-flash", messages=HI))
    assert outcome.complete.finish_reason == "content_filter"


async def test_invalid_key_400_is_an_authentication_error(loopback: LoopbackServer) -> None:
    body = {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.",
                      "status": "INVALID_ARGUMENT", "details": [{"reason": "API_KEY_INVALID"}]}}
    loopback.add("POST", PATH, Response.json(body, status=400))
    outcome = await collect(GeminiAdapter(config(loopback.url + "/v1beta")),
                            ModelRequest(model="gemini-2.5-flash", messages=HI))
    assert outcome.error is not None and outcome.error.code == "authentication"
    assert outcome.error.message.startswith("The Google Gemini API key was rejected (400).")


def test_adapter_for_picks_the_gemini_adapter() -> None:
    assert isinstance(adapter_for(config()), GeminiAdapter)
