"""Every adapter against hostile bodies over loopback HTTP: JSON nested past the depth limit in a stream event,
a non-streamed answer and an error body. Each ends in a typed error with a clear message, never a traceback,
and what arrived before is kept."""

from __future__ import annotations

import pytest

from orchestration.errors import BadRequestError, MalformedResponseError
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
