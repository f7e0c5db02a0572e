"""The Anthropic Messages adapter against the real recorded streams in ../shared/fixtures/providers.

Every ``anthropic-messages-stream`` entry is served over loopback HTTP and must come out as EXPECTED.json says
(blocks in their order, thinking with signatures, redacted thinking, tool calls, merged usage); the same bodies
re-chunked at arbitrary byte boundaries must give the same result. The Anthropic HTTP error bodies must become
the right typed errors. Everything skips when ../shared is absent.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestration.engine import ModelRequest, ResponseStarted, UsageReport
from orchestration.errors import BadRequestError, NotFoundError, ProviderError
from orchestration.messages import ReasoningPart, TextPart, ToolCallPart, UserMessage
from orchestration.providers.anthropic import AnthropicAdapter, AnthropicReader
from orchestration.providers.framing import SSEFrames
from orchestration.providers.presets import provider_from_preset
from tests.support import provider_fixtures as pf
from tests.support.adapter_runs import Outcome, Sleeps, collect, read_pieces
from tests.support.loopback import LoopbackServer, Response

pytestmark = pytest.mark.shared

STREAMS = pf.keys("anthropic-messages-stream")
HTTP_ERRORS = pf.keys("http-error-body", prefix=("anthropic/",))
PATH = "/v1/messages"
FINISH = {"end_turn": "stop", "tool_use": "tool_calls"}


def expected(key: str) -> dict[str, Any]:
    return pf.entry(key)["expected"]


def adapter(server: LoopbackServer, **kwargs: Any) -> AnthropicAdapter:
    return AnthropicAdapter(provider_from_preset("anthropic", base_url=server.url + "/v1",
                                                 api_key="test-key-not-real"), **kwargs)


def parts_as_blocks(parts: list[Any]) -> list[dict[str, Any]]:
    """Our message parts in the shape of EXPECTED.json's ``content`` blocks."""
    blocks: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, TextPart):
            blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ReasoningPart) and part.encrypted is not None:
            blocks.append({"type": "redacted_thinking", "data": part.encrypted})
        elif isinstance(part, ReasoningPart):
            blocks.append({"type": "thinking", "thinking": part.text, "signature": part.signature})
        elif isinstance(part, ToolCallPart):
            blocks.append({"type": "tool_use", "id": part.id, "name": part.name, "input_json": part.arguments,
                           "input": part.parsed_arguments()})
    return blocks


def check_outcome(key: str, outcome: Outcome) -> None:
    exp = expected(key)
    done = outcome.complete
    started = outcome.events[0]
    assert isinstance(started, ResponseStarted)
    assert (started.response_id, started.model) == (exp["id"], exp["model"])
    message = done.message
    assert (message.response_id, message.model) == (exp["id"], exp["model"])
    assert parts_as_blocks(message.parts) == exp["content"]
    assert all(p.provider_format == "anthropic" for p in message.parts if isinstance(p, ReasoningPart))
    assert message.text == exp["text"]
    assert message.reasoning == exp["thinking"]
    assert done.finish_reason == FINISH[exp["stop_reason"]]
    assert done.native_finish_reason == exp["stop_reason"]
    usage = exp["usage_merged"]
    assert done.usage is not None and done.usage.raw == usage
    cached = usage.get("cache_read_input_tokens") or 0
    assert done.usage.input_tokens == usage["input_tokens"] + cached + (usage.get("cache_creation_input_tokens")
                                                                        or 0)
    assert (done.usage.output_tokens, done.usage.cached_tokens) == (usage["output_tokens"], cached)
    reports = [e.usage for e in outcome.events if isinstance(e, UsageReport)]
    assert reports[-1] == done.usage
    # the live events add up to the final message; each call announced once, in order
    assert outcome.text == message.text
    assert outcome.reasoning == message.reasoning
    assert outcome.announced == [(c.id, c.name, c.arguments) for c in message.tool_calls]


def test_all_anthropic_fixtures_are_found() -> None:
    pf.require()
    assert len(STREAMS) == 11
    assert {"anthropic/error-400-invalid-request.json", "anthropic/error-404-not-found-model.json"} == set(
        HTTP_ERRORS)


@pytest.mark.parametrize("key", STREAMS)
async def test_recorded_stream_over_http(key: str, loopback: LoopbackServer) -> None:
    pf.require()
    loopback.add("POST", PATH, Response(headers={"Content-Type": pf.content_type(key)},
                                        chunks=list(pf.split_events(pf.body(key)))))
    outcome = await collect(adapter(loopback), ModelRequest(model=expected(key)["model"],
                                                           messages=[UserMessage(content="hi")]))
    check_outcome(key, outcome)
    [sent] = loopback.requests
    assert sent.header("x-api-key") == "test-key-not-real"
    assert sent.header("anthropic-version") == "2023-06-01"
    assert sent.json["stream"] is True
    assert sent.json["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


@pytest.mark.parametrize("key", STREAMS)
def test_byte_by_byte(key: str) -> None:
    pf.require()
    data = pf.body(key)
    check_outcome(key, read_pieces(AnthropicReader("Anthropic"), SSEFrames(),
                                   [data[i:i + 1] for i in range(len(data))]))


@pytest.mark.parametrize("key", STREAMS)
@settings(max_examples=30, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_rechunked_through_decoder(key: str, data: st.DataObject) -> None:
    pf.require()
    body = pf.body(key)
    points = data.draw(st.lists(st.integers(1, len(body) - 1), max_size=80), label="cuts")
    check_outcome(key, read_pieces(AnthropicReader("Anthropic"), SSEFrames(), pf.cut(body, points)))


@pytest.mark.parametrize("key", STREAMS)
def test_rechunked_over_http(key: str, loopback: LoopbackServer) -> None:
    pf.require()
    body = pf.body(key)
    request = ModelRequest(model=expected(key)["model"], messages=[UserMessage(content="hi")])

    @settings(max_examples=2, deadline=None, database=None)
    @given(points=st.lists(st.integers(1, len(body) - 1), min_size=1, max_size=30))
    def run(points: list[int]) -> None:
        loopback.add("POST", PATH, Response(headers={"Content-Type": pf.content_type(key)},
                                            chunks=list(pf.cut(body, points))))
        check_outcome(key, asyncio.run(collect(adapter(loopback), request)))

    run()


@pytest.mark.parametrize("key", STREAMS)
def test_cut_off_before_message_stop_keeps_the_partial_answer(key: str) -> None:
    pf.require()
    body = pf.body(key)
    cut_at = body.index(b"event: message_stop")
    outcome = read_pieces(AnthropicReader("Anthropic"), SSEFrames(), [body[:cut_at]])
    assert outcome.error is not None and outcome.error.code == "stream_error"
    assert "message_stop" in outcome.error.message
    partial = outcome.error.partial
    assert partial is not None and partial.text == expected(key)["text"]


ERROR_TYPES: dict[int, type[ProviderError]] = {400: BadRequestError, 404: NotFoundError}


@pytest.mark.parametrize("key", HTTP_ERRORS)
async def test_http_error_body_becomes_typed_error(key: str, loopback: LoopbackServer) -> None:
    pf.require()
    exp = expected(key)
    raw = (pf.ROOT / key).read_bytes()
    loopback.always("POST", PATH, Response(status=exp["http_status"],
                                           headers={"Content-Type": pf.content_type(key)}, chunks=[raw]))
    sleeps = Sleeps()
    outcome = await collect(adapter(loopback, sleep=sleeps))
    error = outcome.error
    assert type(error) is ERROR_TYPES[exp["http_status"]]
    assert error.status == exp["http_status"] and error.body == raw.decode()
    assert error.message.startswith("Anthropic ")
    assert exp["body_json"]["error"]["message"] in error.message
    assert error.provider_code == exp["body_json"]["error"]["type"]
    assert loopback.count == 1 and sleeps.calls == []  # client errors are not retried
    json.loads(error.body)
