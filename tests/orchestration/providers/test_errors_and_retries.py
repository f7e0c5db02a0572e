"""Every adapter against a loopback server that counts requests: each HTTP error class becomes its typed error
with a message naming the provider and what to check; 408/409/425/429/5xx/529 and connection failures are retried
(3 attempts, Retry-After honoured) only before the first byte, a server error that says the request is invalid
is not, and the final error counts the attempts; idle and broken streams end with an error that
keeps the partial answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from orchestration.engine import ChatAdapter, ModelRequest
from orchestration.errors import (
    AuthenticationError,
    BadRequestError,
    ConflictError,
    ConnectionFailedError,
    NotFoundError,
    OverloadedError,
    PayloadTooLargeError,
    PermissionDeniedError,
    ProviderError,
    RateLimitError,
    RequestTimeoutError,
    ServerError,
    StreamIdleError,
    TooEarlyError,
)
from orchestration.messages import UserMessage
from orchestration.providers import adapter_for
from orchestration.providers.anthropic import AnthropicAdapter
from orchestration.providers.cohere import CohereAdapter
from orchestration.providers.gemini import GeminiAdapter
from orchestration.providers.ollama_native import OllamaAdapter
from orchestration.providers.openai_chat import OpenAIChatAdapter
from orchestration.providers.openai_responses import OpenAIResponsesAdapter
from orchestration.providers.presets import provider_from_preset
from tests.support.adapter_runs import Sleeps, collect
from tests.support.loopback import LoopbackServer, Response
from tests.support.openai_wire import stream_chunks
from tests.support.provider_wire import (
    anthropic_events,
    cohere_events,
    gemini_chunks,
    ollama_lines,
    responses_events,
)


@dataclass(frozen=True)
class Kind:
    preset: str
    title: str
    suffix: str  # appended to the server URL for the base URL
    path: str  # where the chat request goes
    adapter: type
    stream: Callable[[str], Response]  # a stream that answers with the given text
    cut: Callable[[str], Response]  # the same stream with its end marker missing


def _ndjson(lines: list[dict[str, Any]]) -> Response:
    return Response.body("".join(json.dumps(x) + "\n" for x in lines), "application/x-ndjson")


def _gemini(chunks: list[dict[str, Any]]) -> Response:
    return Response.body(b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks),
                         "text/event-stream")


KINDS = [
    Kind("openai", "OpenAI", "/v1", "/v1/chat/completions", OpenAIChatAdapter,
         lambda t: Response.sse(stream_chunks(t), done=True), lambda t: Response.sse(stream_chunks(t)[:-2])),
    Kind("anthropic", "Anthropic", "/v1", "/v1/messages", AnthropicAdapter,
         lambda t: Response.sse(anthropic_events(text=t)), lambda t: Response.sse(anthropic_events(text=t, end=False))),
    Kind("gemini", "Google Gemini", "/v1beta", "/v1beta/models/m:streamGenerateContent", GeminiAdapter,
         lambda t: _gemini(gemini_chunks(text=t)), lambda t: _gemini(gemini_chunks(text=t, finish=None)[:-1])),
    Kind("ollama-native", "Ollama (native /api/chat)", "", "/api/chat", OllamaAdapter,
         lambda t: _ndjson(ollama_lines(text=t)), lambda t: _ndjson(ollama_lines(text=t, done=False))),
    Kind("openai-responses", "OpenAI (Responses API)", "/v1", "/v1/responses", OpenAIResponsesAdapter,
         lambda t: Response.sse(responses_events(text=t)), lambda t: Response.sse(responses_events(text=t, end=None))),
    Kind("cohere", "Cohere", "", "/v2/chat", CohereAdapter,
         lambda t: Response.sse(cohere_events(text=t)), lambda t: Response.sse(cohere_events(text=t, end=False))),
]
IDS = [k.preset for k in KINDS]
REQUEST = ModelRequest(model="m", messages=[UserMessage(content="hi")])


def make(kind: Kind, server: LoopbackServer, sleeps: Sleeps, **overrides: Any) -> ChatAdapter:
    config = provider_from_preset(kind.preset, base_url=server.url + kind.suffix, api_key="test-key-not-real")
    adapter = adapter_for(config.model_copy(update=overrides))
    assert isinstance(adapter, kind.adapter)
    adapter.transport._sleep = sleeps  # type: ignore[attr-defined]  # record back-off instead of waiting
    return adapter


STATUSES: dict[int, tuple[type[ProviderError], str]] = {
    400: (BadRequestError, "{name} rejected the request (400). Check the model name"),
    401: (AuthenticationError, "The {name} API key was rejected (401). Check it in Preferences > Providers."),
    403: (PermissionDeniedError, "{name} refused access (403). Check that the API key may use this model"),
    404: (NotFoundError, "{name} does not know this model or endpoint (404). Check the model name and the base URL"),
    408: (RequestTimeoutError, "{name} timed out waiting for the request (408). Try again"),
    409: (ConflictError, "{name} reported a conflict with another request (409). Try again."),
    413: (PayloadTooLargeError, "{name} says the request is too large (413). Shorten the conversation"),
    422: (BadRequestError, "{name} could not process the request (422)."),
    425: (TooEarlyError, "{name} asked for the request to be sent again (425 too early). Try again."),
    429: (RateLimitError, "{name} is rate limiting requests or the quota is used up (429). Wait a moment"),
    500: (ServerError, "{name} had an internal error (500). Try again later."),
    502: (ServerError, "{name}, or a gateway in front of it, failed (502 bad gateway). Try again later."),
    503: (ServerError, "{name} is unavailable right now (503). Try again later."),
    504: (ServerError, "{name} took too long to answer (504 gateway timeout). Try again later."),
    529: (OverloadedError, "{name} is overloaded (529). Try again shortly."),
}


# Every status on two kinds, every kind on at least four statuses (the messages come from one shared table).
STATUS_CASES = [pytest.param(KINDS[(i + shift) % len(KINDS)], status,
                             id=f"{KINDS[(i + shift) % len(KINDS)].preset}-{status}")
                for i, status in enumerate(sorted(STATUSES)) for shift in (0, 3)]


@pytest.mark.parametrize(("kind", "status"), STATUS_CASES)
async def test_each_status_class(kind: Kind, status: int, loopback: LoopbackServer) -> None:
    body = {"error": {"message": f"upstream says {status}", "type": "some_error"}}
    loopback.always("POST", kind.path, Response.json(body, status=status, headers={"Retry-After": "1"}))
    sleeps = Sleeps()
    outcome = await collect(make(kind, loopback, sleeps), REQUEST)
    error_type, message = STATUSES[status]
    error = outcome.error
    assert type(error) is error_type and error.status == status
    assert message.format(name=kind.title) in error.message
    assert f"The provider said: upstream says {status}" in error.message
    assert outcome.events == [] and error.partial is None
    if error.retryable:
        assert loopback.count == 3 and sleeps.calls == [1.0, 1.0]  # Retry-After honoured between the 3 tries
    else:
        assert loopback.count == 1 and sleeps.calls == []


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_retries_then_succeeds(kind: Kind, loopback: LoopbackServer) -> None:
    loopback.add("POST", kind.path, Response.json({"error": "busy"}, status=529),
                 Response.json({"error": "down"}, status=503, headers={"Retry-After": "0.25"}),
                 kind.stream("Recovered."))
    sleeps = Sleeps()
    outcome = await collect(make(kind, loopback, sleeps), REQUEST)
    assert outcome.complete.message.text == "Recovered."
    assert loopback.count == 3 and len(sleeps.calls) == 2 and sleeps.calls[1] == 0.25
    assert all(r.json == loopback.requests[0].json for r in loopback.requests)  # the same request each time


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_connection_failures_are_retried(kind: Kind) -> None:
    with LoopbackServer() as server:
        gone = server.url
    sleeps = Sleeps()
    config = provider_from_preset(kind.preset, base_url=gone + kind.suffix)
    adapter = adapter_for(config)
    adapter.transport._sleep = sleeps  # type: ignore[attr-defined]
    outcome = await collect(adapter, REQUEST)
    assert isinstance(outcome.error, ConnectionFailedError)
    assert f"Could not reach {kind.title}" in outcome.error.message and len(sleeps.calls) == 2


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_broken_connection_after_output_is_not_retried(kind: Kind, loopback: LoopbackServer) -> None:
    broken = kind.cut("Partial answer")
    loopback.always("POST", kind.path, Response(headers=broken.headers, chunks=broken.chunks, close_abruptly=True))
    sleeps = Sleeps()
    outcome = await collect(make(kind, loopback, sleeps), REQUEST)
    assert isinstance(outcome.error, ConnectionFailedError)
    assert "broke during the answer" in outcome.error.message
    assert outcome.error.partial is not None and outcome.error.partial.text == "Partial answer"
    assert outcome.text == "Partial answer"
    assert loopback.count == 1 and sleeps.calls == []  # output had been shown: never re-sent


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_stream_without_end_marker_keeps_partial(kind: Kind, loopback: LoopbackServer) -> None:
    loopback.add("POST", kind.path, kind.cut("Cut short"))
    outcome = await collect(make(kind, loopback, Sleeps()), REQUEST)
    assert outcome.error is not None and outcome.error.code == "stream_error"
    assert "ended before the answer was complete" in outcome.error.message
    assert outcome.error.partial is not None and outcome.error.partial.text == "Cut short"


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_idle_stream_is_an_error_not_a_hang(kind: Kind, loopback: LoopbackServer) -> None:
    idle = kind.cut("Waiting")
    loopback.always("POST", kind.path, Response(headers=idle.headers, chunks=idle.chunks, hang=True))
    sleeps = Sleeps()
    outcome = await collect(make(kind, loopback, sleeps, idle_timeout=0.2), REQUEST)
    assert isinstance(outcome.error, StreamIdleError)
    assert f"{kind.title} sent nothing for 0.2 s" in outcome.error.message
    assert outcome.error.partial is not None and outcome.error.partial.text == "Waiting"
    assert loopback.count == 1 and sleeps.calls == []


# --- what is retried -----------------------------------------------------------------------------------------

VALIDATION_500 = {"error": {"message": "Validation error: messages.0.content must be a string",
                            "type": "invalid_request_error"}}


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
async def test_a_server_error_that_says_the_request_is_invalid_is_not_retried(kind: Kind,
                                                                              loopback: LoopbackServer) -> None:
    loopback.always("POST", kind.path, Response.json(VALIDATION_500, status=500))
    sleeps = Sleeps()
    outcome = await collect(make(kind, loopback, sleeps), REQUEST)
    assert isinstance(outcome.error, ServerError) and not outcome.error.retryable
    assert loopback.count == 1 and sleeps.calls == []
    assert "gave up" not in outcome.error.message and outcome.error.attempts == 1
    # worded as the refusal it is: trying again later would fail the same way
    assert outcome.error.message.startswith(f"{kind.title} rejected the request (500): its message says the "
                                            "request is invalid.")
    assert "Try again later" not in outcome.error.message
    assert outcome.error.message.endswith("must be a string")


@pytest.mark.parametrize(("status", "body", "headers", "tries"), [
    (500, {"error": {"message": "internal error"}}, {}, 3),
    (503, {"error": {"message": "invalid upstream state"}}, {}, 3),  # a gateway's words say nothing of the request
    (425, {"error": {"message": "too early"}}, {}, 3),
    (500, VALIDATION_500, {"x-should-retry": "true"}, 3),  # the server's own word wins
    (500, {"error": {"message": "internal error"}}, {"x-should-retry": "false"}, 1),
], ids=["500", "503-with-invalid", "425", "should-retry-true", "should-retry-false"])
async def test_what_can_succeed_on_retry_is_retried_and_the_error_counts_the_attempts(
        status: int, body: dict[str, Any], headers: dict[str, str], tries: int, loopback: LoopbackServer) -> None:
    kind = KINDS[0]
    loopback.always("POST", kind.path, Response.json(body, status=status, headers={"Retry-After": "0", **headers}))
    outcome = await collect(make(kind, loopback, Sleeps()), REQUEST)
    assert outcome.error is not None and loopback.count == tries and outcome.error.attempts == tries
    if tries > 1:
        assert outcome.error.message.endswith(f" Parley gave up after {tries} attempts.")
        assert str(outcome.error) == outcome.error.message
    else:
        assert "gave up" not in outcome.error.message


async def test_a_deterministic_error_after_a_transient_one_says_how_many_attempts(loopback: LoopbackServer) -> None:
    kind = KINDS[1]
    loopback.add("POST", kind.path, Response.json({"error": "busy"}, status=503, headers={"Retry-After": "0"}),
                 Response.json(VALIDATION_500, status=500))
    outcome = await collect(make(kind, loopback, Sleeps()), REQUEST)
    assert isinstance(outcome.error, ServerError) and loopback.count == 2
    assert "Validation error" in outcome.error.message and "gave up after 2 attempts" in outcome.error.message


@pytest.mark.parametrize("body", [
    Response.json({"error": {"message": "internal error"}}, status=500, headers={"Retry-After": "0"}),
    Response.text("Service Unavailable", status=503, headers={"Retry-After": "0"}),
], ids=["json-detail", "plain-text-body"])
async def test_the_attempt_count_starts_a_new_sentence_after_the_providers_words(body: Response,
                                                                                loopback: LoopbackServer) -> None:
    kind = KINDS[0]
    loopback.always("POST", kind.path, body)
    outcome = await collect(make(kind, loopback, Sleeps()), REQUEST)
    assert outcome.error is not None and outcome.error.attempts == 3
    before, _, _ = outcome.error.message.partition(" Parley gave up after 3 attempts.")
    assert before.endswith(".")
