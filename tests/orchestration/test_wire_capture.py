"""The wire record of each model call (``model_exchange``): the loop over a real OpenAI-compatible adapter on
loopback HTTP, including a retry, an error status, a body beyond the capture limit and a key the server echoes."""

from __future__ import annotations

import json

import pytest

from orchestration.events import RunEvent
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.providers.config import ProviderConfig
from orchestration.providers.openai_chat import OpenAIChatAdapter
from orchestration.redaction import REDACTED
from orchestration.run_trace import RunTrace
from orchestration.wire_capture import WIRE_CAPTURE_CHARS
from tests.support.loopback import LoopbackServer, Response
from tests.support.openai_wire import stream_chunks, stream_response
from tools.registry import ToolRegistry

PATH = "/v1/chat/completions"
KEY = "sk-test-wire-capture-not-real-0042"


async def no_wait(_seconds: float) -> None:
    return None


async def run(server: LoopbackServer, prompt: str = "hi", *, stream: bool = True, **config: object
              ) -> list[RunEvent]:
    adapter = OpenAIChatAdapter(ProviderConfig(id="p", base_url=server.url + "/v1", api_key=KEY, **config),
                                sleep=no_wait)
    events: list[RunEvent] = []
    try:
        await RunLoop(adapter, ToolRegistry(), events.append).run(
            RunRequest(model="m", messages=[UserMessage(content=prompt)], stream=stream))
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


@pytest.mark.parametrize("inside", [1, 9, 20, len(KEY) - 1])
async def test_a_key_straddling_the_request_cut_leaves_no_prefix(loopback: LoopbackServer, inside: int) -> None:
    """The prompt holds the key so that the 32,000-character cut falls ``inside`` characters into it."""
    loopback.add("POST", PATH, stream_response("ok"), stream_response("ok"))
    start = exchanges(await run(loopback, prompt="@"))[0].request_body.index("@")  # where the prompt starts
    prompt = "x" * (WIRE_CAPTURE_CHARS - start - inside) + KEY + " and more " * 10
    [wire] = exchanges(await run(loopback, prompt=prompt))
    assert KEY[:9] not in wire.request_body
    assert len(wire.request_body) == WIRE_CAPTURE_CHARS
    sent = json.dumps(loopback.requests[-1].json, ensure_ascii=False).replace(KEY, REDACTED)
    assert sent.startswith(wire.request_body)  # redacted, then cut: nothing of the key but "[redacted]"
    assert wire.request_omitted_chars == len(sent) - WIRE_CAPTURE_CHARS


def sse_with_key_at(position: int) -> bytes:
    """An answer stream (one text delta, then [DONE]) in which the key starts at byte ``position``."""
    def body(filler: int) -> bytes:
        return b"".join(f"data: {json.dumps(chunk)}\n\n".encode() for chunk in stream_chunks(
            "y" * filler + KEY + " and that was the key", piece=10**6)) + b"data: [DONE]\n\n"
    start = body(0).index(KEY.encode())
    raw = body(position - start)
    assert raw.index(KEY.encode()) == position
    return raw


@pytest.mark.parametrize("inside", [1, 9, 20, len(KEY) - 1])
async def test_a_key_straddling_the_response_cut_leaves_no_prefix(loopback: LoopbackServer, inside: int) -> None:
    """The model echoes the key so that the capture's 32,000-byte limit falls ``inside`` characters into it."""
    loopback.add("POST", PATH, Response.body(sse_with_key_at(WIRE_CAPTURE_CHARS - inside), "text/event-stream"))
    [wire] = exchanges(await run(loopback))
    assert wire.status == 200
    assert KEY[:9] not in wire.response_body
    assert wire.response_body.endswith("y") and len(wire.response_body) <= WIRE_CAPTURE_CHARS
    assert wire.response_omitted_bytes >= inside


async def test_a_body_quoted_in_an_error_message_is_cut_after_redaction(loopback: LoopbackServer) -> None:
    """An answer that is not JSON is quoted (its first 200 characters) in the error message; a key across that
    cut must not leave its start behind."""
    loopback.add("POST", PATH, Response.body("n" * 180 + KEY + " trailing", "text/plain"))
    events = await run(loopback, stream=False)
    [error] = [e for e in events if e.type == "error"]
    assert error.code == "malformed_response"
    assert "nnnn" in error.message and KEY[:9] not in error.message
