"""Ollama's native /api/chat adapter: payload, the two-step tool round trip, think tags, and failures. Its
recorded NDJSON streams are run by test_recorded_streams.py (skipped when ../shared is absent)."""

from __future__ import annotations

import json
import socket
from typing import Any

from orchestration.engine import ModelRequest
from orchestration.errors import BadRequestError, mentions_tools
from orchestration.events import RunEvent
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import (
    AssistantMessage,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)
from orchestration.providers import adapter_for
from orchestration.providers.ollama_native import OllamaAdapter, build_payload
from orchestration.tool_api import ToolSpec
from tests.support import provider_fixtures as pf
from tests.support.adapter_requests import HI, payload_maker, preset_config
from tests.support.adapter_runs import Sleeps, collect
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.provider_wire import ollama_lines, ollama_stream
from tools import default_registry

STREAMS = pf.keys("ollama-api-chat-ndjson")
PATH = "/api/chat"
WEATHER = ToolSpec(name="weather", description="Weather", parameters={"type": "object", "properties": {}})


def config(base_url: str = "http://x") -> Any:
    return preset_config("ollama-native", base_url, api_key=None)


payload = payload_maker(build_payload, config, "qwen3")


# --- recorded streams ----------------------------------------------------------------------------------

def test_all_ollama_fixtures_are_found() -> None:
    pf.require()
    assert len(STREAMS) == 2


async def test_model_without_tools_error_body(loopback: LoopbackServer) -> None:
    pf.require()
    key = "ollama/error-400-model-does-not-support-tools.json"
    raw = (pf.ROOT / key).read_bytes()
    loopback.always("POST", PATH, Response(status=400, headers={"Content-Type": pf.content_type(key)},
                                           chunks=[raw]))
    sleeps = Sleeps()
    outcome = await collect(OllamaAdapter(config(loopback.url), sleep=sleeps))
    error = outcome.error
    assert type(error) is BadRequestError and error.status == 400
    assert "does not support tools" in error.message and error.message.startswith("Ollama (native /api/chat)")
    assert mentions_tools(error) and loopback.count == 1 and sleeps.calls == []


# --- payload -------------------------------------------------------------------------------------------

def test_payload_tools_think_options_and_format() -> None:
    body = payload(tools=[WEATHER], reasoning_effort="high", max_output_tokens=99, temperature=0.5,
                   response_format={"type": "json_object"})
    assert body["tools"] == [{"type": "function", "function": {"name": "weather", "description": "Weather",
                                                               "parameters": WEATHER.parameters}}]
    assert body["think"] is True
    assert body["options"] == {"num_predict": 99, "temperature": 0.5}
    assert body["format"] == "json" and body["stream"] is True
    assert payload(model="gpt-oss:20b", reasoning_effort="low")["think"] == "low"
    assert payload(reasoning_effort="minimal")["think"] is False
    assert "think" not in payload()
    assert "tools" not in payload(tools=[WEATHER], tool_choice="none")


def test_history_with_thinking_calls_and_tool_names() -> None:
    assistant = AssistantMessage(parts=[ReasoningPart(text="hm"), TextPart(text=""),
                                        ToolCallPart(id="call_1", name="weather", arguments='{"city": "Oslo"}')])
    body = payload(messages=[*HI, assistant, ToolResultMessage(call_id="call_1", name="weather", content="rain")])
    assert body["messages"][1:] == [
        {"role": "assistant", "content": "", "thinking": "hm",
         "tool_calls": [{"function": {"name": "weather", "arguments": {"city": "Oslo"}}}]},
        {"role": "tool", "content": "rain", "tool_name": "weather"}]


# --- the two-step round trip ---------------------------------------------------------------------------

def ollama_calculator(request: Request) -> Response | None:
    messages = request.json["messages"]
    if len(messages) == 1:
        return ollama_stream(thinking="Use the tool.", calls=[(None, "calculate", {"expression": "6*7"})])
    return ollama_stream(text="<think>It said 42.</think>\n\nThe answer is 42.")


async def test_two_step_tool_round_trip() -> None:
    async with LoopbackServer(handler=ollama_calculator) as server:
        events: list[RunEvent] = []
        loop = RunLoop(OllamaAdapter(config(server.url)), default_registry(), events.append)
        result = await loop.run(RunRequest(model="qwen3", messages=[UserMessage(content="6*7?")],
                                           tool_names=["calculate"]))
        first, second = (r.json for r in server.requests)
    assert result.finish_reason == "stop" and result.answer == "The answer is 42."
    [call_event] = [e for e in events if e.type == "tool_calls"]
    assert call_event.calls[0].id.startswith("call_")  # assigned: Ollama sends none
    assert second["messages"][1] == {"role": "assistant", "content": "", "thinking": "Use the tool.",
                                     "tool_calls": [{"function": {"name": "calculate",
                                                                  "arguments": {"expression": "6*7"}}}]}
    assert second["messages"][2]["role"] == "tool" and second["messages"][2]["tool_name"] == "calculate"
    assert "42" in second["messages"][2]["content"]
    reasoning = "".join(e.content for e in events if e.type == "reasoning")
    assert reasoning == "Use the tool.It said 42."  # the field, then the <think> tags split out of the text
    assert "parallel_tool_calls" not in first


# --- failures ------------------------------------------------------------------------------------------

async def test_error_line_mid_stream(loopback: LoopbackServer) -> None:
    lines = [*ollama_lines(text="Part", done=False), {"error": "model runner has unexpectedly stopped"}]
    loopback.add("POST", PATH, Response.body("".join(json.dumps(x) + "\n" for x in lines), "application/x-ndjson"))
    outcome = await collect(OllamaAdapter(config(loopback.url)))
    assert outcome.error is not None and outcome.error.code == "stream_error"
    assert "model runner has unexpectedly stopped" in outcome.error.message
    assert outcome.error.partial is not None and outcome.error.partial.text == "Part"


async def test_non_streamed_answer(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.json(ollama_lines(text="whole")[-1] | {
        "message": {"role": "assistant", "content": "whole"}}))
    outcome = await collect(OllamaAdapter(config(loopback.url)), ModelRequest(model="m", messages=HI, stream=False))
    assert outcome.complete.message.text == "whole" and loopback.requests[0].json["stream"] is False


async def test_server_not_running_names_the_fix() -> None:
    sleeps = Sleeps()
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config_ = config(f"http://127.0.0.1:{port}").model_copy(update={"max_attempts": 2})
    outcome = await collect(OllamaAdapter(config_, sleep=sleeps))
    assert outcome.error is not None and outcome.error.code == "connection_failed"
    assert "Check that the server is running" in outcome.error.message
    assert len(sleeps.calls) == 1  # retried once before giving up


def test_adapter_for_picks_the_ollama_adapter() -> None:
    assert isinstance(adapter_for(config()), OllamaAdapter)
