"""Where the shared read loop (providers/base.py) serves the user better than the OpenAI chat adapter's own
loop did, now that the adapter reads through it; a whole answer that is not JSON, quoted the same way by every
format; and a stream frame that is not JSON, quoted with the key hidden. Over loopback HTTP."""

from __future__ import annotations

import pytest

from orchestration.errors import MalformedResponseError, StreamError
from tests.support.adapter_runs import collect
from tests.support.loopback import LoopbackServer, Response
from tests.support.wire_kinds import KINDS, WireKind

OPENAI = KINDS[0]
PIECE = b'data: {"id":"r","model":"m","choices":[{"index":0,"delta":{"content":"Half"}}]}\n\n'


async def test_a_stream_cut_inside_its_last_event_is_a_cut_off_stream(loopback: LoopbackServer) -> None:
    """The connection ended in the middle of an event's JSON: the stream broke off (what arrived is kept), it is
    not a server sending malformed JSON."""
    loopback.add("POST", OPENAI.path, OPENAI.stream_of(PIECE, b'data: {"id":"r","choices":[{"ind'))
    outcome = await collect(OPENAI.adapter(loopback), OPENAI.request())
    assert type(outcome.error) is StreamError
    assert "ended before the answer was complete" in outcome.error.message
    assert outcome.error.partial is not None and outcome.error.partial.text == "Half"


async def test_an_error_body_without_sse_framing_reports_the_servers_error(loopback: LoopbackServer) -> None:
    """A server that answers a streamed request with a bare JSON error under an event-stream content type:
    the user reads the server's words, not "no content"."""
    loopback.add("POST", OPENAI.path, OPENAI.stream_of(b'{"error": {"message": "model qwen9 not found"}}'))
    outcome = await collect(OPENAI.adapter(loopback), OPENAI.request())
    assert isinstance(outcome.error, StreamError)
    assert "model qwen9 not found" in outcome.error.message


async def test_a_json_answer_to_a_streamed_request_that_is_not_json_is_quoted(loopback: LoopbackServer) -> None:
    """A server that says JSON but sends something else: the message quotes what it sent."""
    loopback.add("POST", OPENAI.path, Response.body(b"<html>Bad gateway</html>", "application/json"))
    outcome = await collect(OPENAI.adapter(loopback), OPENAI.request())
    assert isinstance(outcome.error, MalformedResponseError)
    assert "not JSON: '<html>Bad gateway</html>'" in outcome.error.message


@pytest.mark.parametrize("kind", [k for k in KINDS if k.whole_type == "application/json"],
                         ids=lambda k: k.name)
async def test_a_non_streamed_answer_that_is_not_json_is_quoted_by_every_format(kind: WireKind,
                                                                                loopback: LoopbackServer) -> None:
    """The base reports a whole body that is not JSON as the transport does: an answer, quoted, not a "stream
    frame"."""
    loopback.add("POST", kind.plain_path, Response.body(b"<html>Bad gateway</html>", kind.whole_type))
    outcome = await collect(kind.adapter(loopback), kind.request(stream=False))
    assert isinstance(outcome.error, MalformedResponseError)
    assert outcome.error.message.endswith("answered with something that is not JSON: '<html>Bad gateway</html>'")


@pytest.mark.parametrize("kind", [k for k in KINDS if k.frame is KINDS[0].frame], ids=lambda k: k.name)
async def test_a_frame_that_is_not_json_is_quoted_without_the_key(kind: WireKind, loopback: LoopbackServer) -> None:
    """A server that echoes the API key in a broken event: the quote in the message hides it, also where the
    quote's cut would fall inside it."""
    key = "test-key-not-real"
    for junk in (f"oops {key} and more", "x" * 110 + key):
        loopback.add("POST", kind.path, kind.stream_of(kind.frame(junk.encode()), *kind.answer_frames("Hi")))
        outcome = await collect(kind.adapter(loopback), kind.request())
        assert isinstance(outcome.error, MalformedResponseError)
        assert "a frame is not JSON" in outcome.error.message
        assert key[:6] not in outcome.error.message
