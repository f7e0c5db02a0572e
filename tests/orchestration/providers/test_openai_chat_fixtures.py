"""The OpenAI Chat Completions adapter against real recorded provider streams.

Every ``openai-chat-completions-stream`` entry of ../shared/fixtures/providers/EXPECTED.json is served over a
real loopback HTTP server and must come out of ``OpenAIChatAdapter.stream`` exactly as EXPECTED.json says; the
same bodies re-chunked at arbitrary byte boundaries (hypothesis) must give the same result, both straight
through the SSE decoder + ``ChunkReader`` and over HTTP. The OpenAI-compatible HTTP error bodies must become
the right typed errors. Everything skips when ../shared is absent.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestration.engine import (
    ModelRequest,
    ProviderEvent,
    ReasoningChunk,
    ResponseComplete,
    ResponseStarted,
    TextChunk,
    ToolCallReady,
    UsageReport,
)
from orchestration.errors import (
    BadRequestError,
    NotFoundError,
    ProviderError,
    RateLimitError,
    StreamError,
    mentions_tools,
)
from orchestration.messages import ReasoningPart, UserMessage
from orchestration.providers.config import ProviderConfig
from orchestration.providers.openai_chat import ChunkReader, OpenAIChatAdapter
from orchestration.providers.sse import SSEDecoder
from tests.support import provider_fixtures as pf
from tests.support.loopback import LoopbackServer, Response

pytestmark = pytest.mark.shared

CHAT = pf.keys("openai-chat-completions-stream")
HTTP_ERRORS = pf.keys("http-error-body", prefix=("openai/", "openrouter/", "groq/", "deepseek/", "ollama/"))
FINISH = {"tool_calls": "tool_calls", "stop": "stop", "length": "length"}
PATH = "/v1/chat/completions"


@dataclass
class Outcome:
    events: list[ProviderEvent]
    error: ProviderError | None = None


def expected(key: str) -> dict[str, Any]:
    return pf.entry(key)["expected"]


def expected_reasoning(exp: dict[str, Any]) -> str:
    return exp["reasoning_content"] + exp["reasoning"] + exp["mistral_thinking"]


def request_for(key: str) -> ModelRequest:
    return ModelRequest(model=expected(key)["model"], messages=[UserMessage(content="hi")])


def config_for(key: str, server: LoopbackServer, **overrides: Any) -> ProviderConfig:
    return ProviderConfig(id=key.split("/")[0], base_url=server.url + "/v1", **overrides)


# --- running ---------------------------------------------------------------------------------------

def read_pieces(key: str, pieces: list[bytes]) -> Outcome:
    """The body through the SSE decoder and the chunk reader, without HTTP."""
    decoder = SSEDecoder()
    reader = ChunkReader(key.split("/")[0])
    events: list[ProviderEvent] = []
    try:
        for piece in pieces:
            for sse in decoder.feed(piece):
                events += reader.sse_event(sse.event, sse.data)
        for sse in decoder.close():
            events += reader.sse_event(sse.event, sse.data)
        events += reader.end()
    except ProviderError as error:
        return Outcome(events, error)
    return Outcome(events)


async def stream_over_http(key: str, server: LoopbackServer, chunks: list[bytes]) -> Outcome:
    server.add("POST", PATH, Response(headers={"Content-Type": pf.content_type(key)}, chunks=list(chunks)))
    adapter = OpenAIChatAdapter(config_for(key, server))
    events: list[ProviderEvent] = []
    try:
        async for event in adapter.stream(request_for(key)):
            events.append(event)
    except ProviderError as error:
        return Outcome(events, error)
    finally:
        await adapter.aclose()
    return Outcome(events)


# --- checking --------------------------------------------------------------------------------------

def streamed_text(events: list[ProviderEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextChunk))


def streamed_reasoning(events: list[ProviderEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, ReasoningChunk))


def check_outcome(key: str, outcome: Outcome) -> None:
    exp = expected(key)
    events = outcome.events
    if exp["errors"]:
        check_stream_error(exp, outcome)
        return
    assert outcome.error is None, f"unexpected {outcome.error!r}"

    assert isinstance(events[0], ResponseStarted)
    assert (events[0].response_id, events[0].model) == (exp["id"], exp["model"])
    complete = events[-1]
    assert isinstance(complete, ResponseComplete)
    assert sum(isinstance(e, ResponseComplete) for e in events) == 1
    msg = complete.message
    assert msg.response_id == exp["id"]
    assert msg.model == exp["model"]
    assert msg.text == exp["text"]
    assert msg.reasoning == expected_reasoning(exp)
    want_calls = [(c["id"], c["name"], c["arguments"]) for c in exp["tool_calls"]]
    assert [(c.id, c.name, c.arguments) for c in msg.tool_calls] == want_calls
    assert complete.finish_reason == FINISH[exp["finish_reason"]]

    usage = exp["usage"]
    if usage is None:
        assert complete.usage is None
        assert not any(isinstance(e, UsageReport) for e in events)
    else:
        got = complete.usage
        assert got is not None
        assert got.raw == usage
        assert got.input_tokens == usage["prompt_tokens"]
        assert got.output_tokens == usage["completion_tokens"]
        details = usage.get("completion_tokens_details") or {}
        assert got.reasoning_tokens == details.get("reasoning_tokens", 0)
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or usage.get(
            "prompt_cache_hit_tokens", 0)
        assert got.cached_tokens == cached
        reports = [e.usage for e in events if isinstance(e, UsageReport)]
        assert reports and reports[-1] == got

    details = [d for p in msg.parts if isinstance(p, ReasoningPart) for d in p.details]
    assert details == exp["reasoning_details_merged"]

    # The live events add up to the final message, and every call was announced exactly once, in order.
    assert streamed_text(events) == msg.text
    assert streamed_reasoning(events) == msg.reasoning
    announced = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert [(c.id, c.name, c.arguments) for c in announced] == want_calls
    for call in announced:
        call.parsed_arguments()  # every recorded call carries valid JSON (or nothing)


def check_stream_error(exp: dict[str, Any], outcome: Outcome) -> None:
    error = outcome.error
    assert isinstance(error, StreamError), f"expected a StreamError, got {error!r}"
    frame = exp["errors"][0]["error"]
    assert frame["message"] in error.message
    status = frame.get("status_code") or (frame["code"] if isinstance(frame.get("code"), int) else None)
    assert error.status == status
    assert error.partial is not None
    assert error.partial.text == exp["text"]
    assert error.partial.reasoning == expected_reasoning(exp)
    assert streamed_text(outcome.events) == exp["text"]
    assert streamed_reasoning(outcome.events) == expected_reasoning(exp)
    assert not any(isinstance(e, ResponseComplete) for e in outcome.events)


# --- whole recordings over HTTP --------------------------------------------------------------------

def test_all_chat_fixtures_are_found() -> None:
    pf.require()
    assert len(CHAT) == 29
    assert {k.split("/")[0] for k in CHAT} >= {"openai", "openrouter", "groq", "deepseek", "mistral", "xai",
                                               "zai", "llamacpp", "ollama"}


@pytest.mark.parametrize("key", CHAT)
async def test_recorded_stream_over_http(key: str, loopback: LoopbackServer) -> None:
    pf.require()
    outcome = await stream_over_http(key, loopback, pf.split_events(pf.body(key)))
    check_outcome(key, outcome)
    sent = loopback.requests
    assert len(sent) == 1
    assert sent[0].path == PATH
    assert sent[0].json["model"] == expected(key)["model"]
    assert sent[0].json["stream"] is True
    assert sent[0].json["messages"] == [{"role": "user", "content": "hi"}]


def test_openrouter_reasoning_is_not_doubled() -> None:
    """OpenRouter sends each reasoning piece twice (``reasoning`` and ``reasoning_details``)."""
    key = "openrouter/chat-reasoning-details-claude-sonnet-4.5.sse"
    pf.require()
    outcome = read_pieces(key, [pf.body(key)])
    reasoning = streamed_reasoning(outcome.events)
    assert reasoning == "This is a simple arithmetic question. 2+2 equals 4."
    final = outcome.events[-1]
    assert isinstance(final, ResponseComplete)
    [part] = [p for p in final.message.parts if isinstance(p, ReasoningPart)]
    assert part.details[0]["signature"].startswith("Et0BCkgIChACGAIqQA2s")


# --- re-chunked --------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", CHAT)
def test_byte_by_byte(key: str) -> None:
    pf.require()
    data = pf.body(key)
    check_outcome(key, read_pieces(key, [data[i:i + 1] for i in range(len(data))]))


@pytest.mark.parametrize("key", CHAT)
@settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_rechunked_through_decoder(key: str, data: st.DataObject) -> None:
    pf.require()
    body = pf.body(key)
    points = data.draw(st.lists(st.integers(1, len(body) - 1), max_size=80), label="cuts")
    check_outcome(key, read_pieces(key, pf.cut(body, points)))


@pytest.mark.parametrize("key", CHAT)
def test_rechunked_over_http(key: str, loopback: LoopbackServer) -> None:
    pf.require()
    body = pf.body(key)

    @settings(max_examples=3, deadline=None, database=None)
    @given(points=st.lists(st.integers(1, len(body) - 1), min_size=1, max_size=30))
    def run(points: list[int]) -> None:
        outcome = asyncio.run(stream_over_http(key, loopback, pf.cut(body, points)))
        check_outcome(key, outcome)

    run()


# --- HTTP error bodies -------------------------------------------------------------------------------

ERROR_TYPES: dict[int, type[ProviderError]] = {400: BadRequestError, 404: NotFoundError, 429: RateLimitError}


def test_http_error_fixtures_are_found() -> None:
    pf.require()
    assert {"groq/error-400-tool-use-failed.json", "deepseek/error-400-invalid-request.json",
            "ollama/error-400-model-does-not-support-tools.json",
            "openai/error-404-model-not-found-chat.json"} <= set(HTTP_ERRORS)


@pytest.mark.parametrize("key", HTTP_ERRORS)
async def test_http_error_body_becomes_typed_error(key: str, loopback: LoopbackServer) -> None:
    pf.require()
    exp = expected(key)
    raw = (pf.ROOT / key).read_bytes()
    status = exp["http_status"]
    loopback.always("POST", PATH, Response(status=status, headers={"Content-Type": pf.content_type(key)},
                                           chunks=[raw]))
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    adapter = OpenAIChatAdapter(config_for(key, loopback), sleep=sleep)
    with pytest.raises(ProviderError) as caught:
        async for _ in adapter.stream(ModelRequest(model="m", messages=[UserMessage(content="hi")])):
            pass
    await adapter.aclose()
    error = caught.value
    assert type(error) is ERROR_TYPES[status]
    assert error.status == status
    assert error.body == raw.decode()
    body_error = exp["body_json"]["error"]
    provider_message = body_error["message"] if isinstance(body_error, dict) else body_error
    assert provider_message in error.message
    assert error.partial is None
    if error.retryable:  # 429: tried max_attempts times, backing off in between
        assert loopback.count == 3 and len(sleeps) == 2
    else:
        assert loopback.count == 1 and sleeps == []
    if key.startswith(("groq/", "ollama/")):
        assert mentions_tools(error)  # the loop retries these once without tools
