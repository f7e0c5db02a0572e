"""The wire record of each model call (``model_exchange``): the loop over a real OpenAI-compatible adapter on
loopback HTTP, including a retry, an error status, a body beyond the capture limit and a key the server echoes."""

from __future__ import annotations

import json

from orchestration.events import RunEvent
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.providers.config import ProviderConfig
from orchestration.providers.openai_chat import OpenAIChatAdapter
from orchestration.run_trace import RunTrace
from orchestration.wire_capture import WIRE_CAPTURE_CHARS
from tests.support.loopback import LoopbackServer, Response
from tests.support.openai_wire import stream_response
from tools.registry import ToolRegistry

PATH = "/v1/chat/completions"
KEY = "sk-test-wire-capture-not-real-0042"


async def no_wait(_seconds: float) -> None:
    return None


async def run(server: LoopbackServer, prompt: str = "hi", **config: object) -> list[RunEvent]:
    adapter = OpenAIChatAdapter(ProviderConfig(id="p", base_url=server.url + "/v1", api_key=KEY, **config),
                                sleep=no_wait)
    events: list[RunEvent] = []
    try:
        await RunLoop(adapter, ToolRegistry(), events.append).run(
            RunRequest(model="m", messages=[UserMessage(content=prompt)]))
    finally:
        await adapter.aclose()
    return events


def exchanges(events: list[RunEvent]) -> list:
    return [e for e in events if e.type == "model_exchange"]


async def test_request_and_streamed_response_as_they_went_over_the_wire(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, stream_response("Hello there"))
    events = await run(loopback)
    [wire] = exchanges(events)
    assert (wire.method, wire.path, wire.attempts, wire.status) == ("POST", "chat/completions", 1, 200)
    assert json.loads(wire.request_body) == loopback.requests[0].json  # the body exactly as the server got it
    assert wire.content_type.startswith("text/event-stream")
    assert wire.response_body.startswith("data: {") and wire.response_body.rstrip().endswith("data: [DONE]")
    assert (wire.request_omitted_chars, wire.response_omitted_bytes) == (0, 0)
    assert [e.type for e in events][-3:] == ["model_call_finished", "model_exchange", "done"]
    assert KEY not in json.dumps([e.model_dump() for e in events])  # the key travels in a header only


async def test_a_retried_call_records_the_last_attempt(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.json({"error": {"message": "busy"}}, status=503), stream_response("ok"))
    [wire] = exchanges(await run(loopback, max_attempts=2))
    assert (wire.attempts, wire.status) == (2, 200)


async def test_an_error_status_keeps_its_body_with_the_echoed_key_redacted(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.json({"error": {"message": f"Incorrect API key provided: {KEY}"}},
                                             status=401))
    events = await run(loopback, max_attempts=1)
    [wire] = exchanges(events)
    assert wire.status == 401
    assert "Incorrect API key provided: [redacted]" in wire.response_body
    assert events[-1].type == "done" and events[-2].type == "error"
    trace = RunTrace.from_events(events)
    assert trace.received_text(trace.calls[0]).startswith("HTTP 401 application/json\n{")


async def test_a_long_request_is_cut_and_the_trace_says_by_how_much(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, stream_response("short"))
    events = await run(loopback, prompt="x" * (WIRE_CAPTURE_CHARS * 2))
    [wire] = exchanges(events)
    sent_length = len(json.dumps(loopback.requests[0].json, ensure_ascii=False))
    assert len(wire.request_body) == WIRE_CAPTURE_CHARS
    assert wire.request_omitted_chars == sent_length - WIRE_CAPTURE_CHARS
    trace = RunTrace.from_events(events)
    sent = trace.sent_text(trace.calls[0])
    assert sent.startswith("POST chat/completions\n{")
    assert sent.endswith(f"[cut: {wire.request_omitted_chars} more characters]")


async def test_no_response_is_said_plainly(loopback: LoopbackServer) -> None:
    url = loopback.url
    loopback.stop()
    adapter = OpenAIChatAdapter(ProviderConfig(id="p", base_url=url + "/v1", max_attempts=1), sleep=no_wait)
    events: list[RunEvent] = []
    await RunLoop(adapter, ToolRegistry(), events.append).run(RunRequest(model="m",
                                                                         messages=[UserMessage(content="hi")]))
    await adapter.aclose()
    [wire] = exchanges(events)
    assert wire.status is None and wire.response_body == ""
    trace = RunTrace.from_events(events)
    assert trace.received_text(trace.calls[0]) == "no response arrived\n"
