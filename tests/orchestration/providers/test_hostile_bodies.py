"""Every adapter against hostile bodies over loopback HTTP: JSON nested past the depth limit in a stream event,
a non-streamed answer and an error body; empty answers; events and bodies past the size limit. Each ends in a
typed error with a clear message, never a traceback or a silent empty answer, and what arrived before is
kept."""

from __future__ import annotations

import pytest

from orchestration.errors import (
    BadRequestError,
    EmptyResponseError,
    MalformedResponseError,
    ResponseTooLargeError,
)
from orchestration.providers.sse import MAX_EVENT_BYTES
from tests.support.adapter_runs import collect
from tests.support.loopback import LoopbackServer, Response
from tests.support.wire_kinds import KIND_IDS, KINDS, WireKind

DEEP = b"[" * 1_100 + b"]" * 1_100
DEEP_OBJECT = b'{"a":' * 1_100 + b"1" + b"}" * 1_100

kinds = pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)


@kinds
async def test_a_normal_answer_reads(kind: WireKind, loopback: LoopbackServer) -> None:
    loopback.add("POST", kind.path, kind.answer("Hello there"))
    outcome = await collect(kind.adapter(loopback), kind.request())
    assert outcome.complete.message.text == "Hello there"


@kinds
@pytest.mark.parametrize("deep", [DEEP, DEEP_OBJECT], ids=["array", "object"])
async def test_deep_stream_event_is_malformed_and_the_partial_answer_kept(
        kind: WireKind, deep: bytes, loopback: LoopbackServer) -> None:
    frames = kind.answer_frames("Hello there")
    loopback.add("POST", kind.path, kind.stream_of(*frames[:-2], kind.frame(deep), *frames[-2:]))
    outcome = await collect(kind.adapter(loopback), kind.request())
    assert isinstance(outcome.error, MalformedResponseError)
    assert "nested more than 100 levels deep, over the limit of 100" in outcome.error.user_message
    assert "stream event" in outcome.error.user_message
    assert outcome.error.partial is not None and outcome.text.startswith("Hel")
    assert outcome.error.partial.text == outcome.text


@kinds
async def test_deep_non_streamed_answer_is_malformed(kind: WireKind, loopback: LoopbackServer) -> None:
    loopback.add("POST", kind.plain_path, Response.body(DEEP, kind.whole_type))
    outcome = await collect(kind.adapter(loopback), kind.request(stream=False))
    assert isinstance(outcome.error, MalformedResponseError)
    assert "nested more than 100 levels deep" in outcome.error.user_message


@kinds
async def test_deep_error_body_keeps_the_status_error(kind: WireKind, loopback: LoopbackServer) -> None:
    loopback.add("POST", kind.path, Response.body(DEEP, "application/json", status=400))
    outcome = await collect(kind.adapter(loopback), kind.request())
    assert isinstance(outcome.error, BadRequestError) and outcome.error.status == 400
    assert "Its error body could not be read: the error body is nested more than 100 levels deep" in (
        outcome.error.user_message)



# --- no content ------------------------------------------------------------------------------------------

@kinds
async def test_empty_streamed_body_is_an_empty_response(kind: WireKind, loopback: LoopbackServer) -> None:
    loopback.add("POST", kind.path, kind.stream_of())
    outcome = await collect(kind.adapter(loopback), kind.request())
    assert isinstance(outcome.error, EmptyResponseError) and outcome.error.code == "empty_response"
    assert "the server answered with no content: an empty body." in outcome.error.user_message
    assert outcome.events == []


@kinds
async def test_stream_without_any_event_is_an_empty_response(kind: WireKind, loopback: LoopbackServer) -> None:
    sent = b"\n\n" if kind.name == "ollama" else b": keep-alive\n\ndata: [DONE]\n\n"
    loopback.add("POST", kind.path, kind.stream_of(sent))
    outcome = await collect(kind.adapter(loopback), kind.request())
    assert isinstance(outcome.error, EmptyResponseError)
    if kind.name != "ollama":
        assert "no content: ': keep-alive\\n\\ndata: [DONE]'" in outcome.error.user_message


@kinds
async def test_empty_non_streamed_body_is_an_empty_response(kind: WireKind, loopback: LoopbackServer) -> None:
    loopback.add("POST", kind.plain_path, Response.body(b"", kind.whole_type))
    outcome = await collect(kind.adapter(loopback), kind.request(stream=False))
    assert isinstance(outcome.error, EmptyResponseError)
    assert "the server answered with no content: an empty body." in outcome.error.user_message


@kinds
async def test_empty_json_body_to_a_streamed_request(kind: WireKind, loopback: LoopbackServer) -> None:
    loopback.add("POST", kind.path, Response.body(b"", "application/json"))
    outcome = await collect(kind.adapter(loopback), kind.request())
    assert isinstance(outcome.error, EmptyResponseError)


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
async def test_openai_chunks_that_hold_nothing_are_an_empty_response(loopback: LoopbackServer, stream: bool) -> None:
    """What llama-cpp-python sends when the model says nothing: a role chunk and a finish chunk (or a message
    with empty content). A 200 with nothing in it is an error, not an empty success."""
    kind = KINDS[0]  # openai
    assert kind.name == "openai"
    if stream:
        chunks = [{"id": "c", "choices": [{"index": 0, "delta": {"role": "assistant", "content": None}}]},
                  {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
        loopback.add("POST", kind.path, Response.sse(chunks, done=True))
    else:
        loopback.add("POST", kind.plain_path, Response.json({"id": "c", "choices": [{"index": 0, "message": {
            "role": "assistant", "content": ""}, "finish_reason": "stop"}]}))
    outcome = await collect(kind.adapter(loopback), kind.request(stream=stream))
    assert isinstance(outcome.error, EmptyResponseError)
    assert "without text, reasoning or a tool call" in outcome.error.user_message


async def test_openai_an_empty_answer_cut_by_the_length_limit_is_not_an_error(loopback: LoopbackServer) -> None:
    kind = KINDS[0]
    chunks = [{"id": "c", "choices": [{"index": 0, "delta": {"role": "assistant"}}]},
              {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}]
    loopback.add("POST", kind.path, Response.sse(chunks, done=True))
    outcome = await collect(kind.adapter(loopback), kind.request())
    assert outcome.complete.finish_reason == "length"


async def test_what_is_quoted_is_cut_and_keeps_no_key(loopback: LoopbackServer) -> None:
    kind = KINDS[2]  # anthropic
    key = "test-key-not-real"
    loopback.add("POST", kind.path, kind.stream_of(b": " + key.encode() + b" " + b"x" * 500 + b"\n\n"))
    outcome = await collect(kind.adapter(loopback), kind.request())
    assert isinstance(outcome.error, EmptyResponseError)
    message = outcome.error.user_message
    assert key not in message and "[redacted]" in message and "(cut)" in message and len(message) < 400

# --- huge events and answers ---------------------------------------------------------------------------------

HUGE = 17 * 1024 * 1024  # bytes: past the 16 MiB limit for one event


def huge_line(kind: WireKind) -> list[bytes]:
    """One event whose data never ends within the limit, sent in 1 MiB pieces."""
    head = b"data: " if kind.frame is not KINDS[4].frame else b""
    body = head + b'{"x": "' + b"a" * HUGE
    return [body[i:i + 1024 * 1024] for i in range(0, len(body), 1024 * 1024)]


@kinds
async def test_a_huge_stream_event_stops_reading_with_the_partial_answer(kind: WireKind,
                                                                          loopback: LoopbackServer) -> None:
    frames = kind.answer_frames("Hello there")
    loopback.add("POST", kind.path, kind.stream_of(*frames[:-2], *huge_line(kind)))
    outcome = await collect(kind.adapter(loopback), kind.request())
    assert isinstance(outcome.error, ResponseTooLargeError) and outcome.error.code == "response_too_large"
    assert "sent a stream event larger than 16 MiB, the limit for one event; reading stopped" in (
        outcome.error.user_message)
    assert outcome.error.partial is not None and outcome.text.startswith("Hel")
    assert outcome.error.partial.text == outcome.text


@kinds
async def test_a_huge_non_streamed_answer_is_refused(kind: WireKind, loopback: LoopbackServer) -> None:
    loopback.add("POST", kind.plain_path, Response.body(b'{"x": "' + b"a" * HUGE + b'"}', kind.whole_type,
                                                        chunk_size=1024 * 1024))
    outcome = await collect(kind.adapter(loopback), kind.request(stream=False))
    assert isinstance(outcome.error, ResponseTooLargeError)
    assert "larger than 16 MiB" in outcome.error.user_message


async def test_a_huge_error_body_is_read_only_in_part(loopback: LoopbackServer) -> None:
    kind = KINDS[0]
    body = b'{"error": {"message": "no"}}' + b" " * (8 * 1024 * 1024)
    loopback.add("POST", kind.path, Response.body(body, "application/json", status=400, chunk_size=64 * 1024))
    outcome = await collect(kind.adapter(loopback), kind.request())
    assert isinstance(outcome.error, BadRequestError)
    assert outcome.error.body is not None and len(outcome.error.body) <= 64_000


@pytest.mark.parametrize("kind", [KINDS[0], KINDS[2]], ids=["openai", "anthropic"])
async def test_an_event_that_passes_the_limit_only_at_the_end_of_the_body(kind: WireKind,
                                                                          loopback: LoopbackServer) -> None:
    # exactly the limit while arriving; the cut-off UTF-8 sequence at the end becomes one more character
    body = b"data: " + b"a" * (MAX_EVENT_BYTES - 6) + b"\xe2\x82"
    loopback.add("POST", kind.path, Response.body(body, "text/event-stream", chunk_size=1024 * 1024))
    outcome = await collect(kind.adapter(loopback), kind.request())
    assert isinstance(outcome.error, ResponseTooLargeError)
