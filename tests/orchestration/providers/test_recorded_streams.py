"""Every wire format against its real recorded streams in ../shared/fixtures/providers, the same five ways.

Each recording is read (1) whole, served over loopback HTTP one event per flush, with the request checked;
(2) byte by byte through the format's framing and reader; (3) re-chunked at random byte boundaries
(hypothesis) through the framing and reader; (4) re-chunked over loopback HTTP; and (5) cut off before the
format's end marker, which must be an error that keeps the partial answer. A format is one ``WireFormat`` row:
its fixture format name, framing and reader, adapter and request path; what its recordings must come out as is
in tests/support/recorded_checks.py. Everything skips when ../shared is absent.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestration.engine import ChatAdapter, ModelRequest
from orchestration.providers.anthropic import AnthropicAdapter, AnthropicReader
from orchestration.providers.cohere import CohereAdapter, CohereReader
from orchestration.providers.config import ProviderConfig
from orchestration.providers.framing import FrameDecoder, JSONArrayFrames, NDJSONFrames, SSEFrames
from orchestration.providers.gemini import GeminiAdapter, GeminiReader
from orchestration.providers.ollama_native import OllamaAdapter, OllamaReader
from orchestration.providers.openai_chat import OpenAIChatAdapter
from orchestration.providers.openai_responses import OpenAIResponsesAdapter, ResponsesReader
from orchestration.providers.presets import provider_from_preset
from tests.support import provider_fixtures as pf
from tests.support import recorded_checks as checks
from tests.support.adapter_requests import HI
from tests.support.adapter_runs import Outcome, collect, read_openai_chat, read_pieces
from tests.support.loopback import LoopbackServer, Request, Response

pytestmark = pytest.mark.shared

KEY = "test-key-not-real"


@dataclass(frozen=True)
class WireFormat:
    name: str
    keys: list[str]  # the EXPECTED.json entries of this format (``[pf.ABSENT]`` without ../shared)
    path: Callable[[str], str]  # where the adapter sends the request for a recording
    adapter: Callable[[str, LoopbackServer], ChatAdapter]
    request: Callable[[str], ModelRequest]
    read: Callable[[str, list[bytes]], Outcome]  # body pieces through the framing and reader, without HTTP
    check: Callable[[str, Outcome], None]
    check_sent: Callable[[str, Request], None]  # the one request the adapter sent for a whole recording
    cut_off: Callable[[str], None] | None  # cut before the end marker: an error keeping the partial answer
    rechunk_examples: int  # hypothesis examples through the reader (fast) ...
    http_rechunk_examples: int  # ... and over HTTP (slower)
    served: Callable[[str], list[bytes]] = lambda key: pf.split_events(pf.body(key))  # a server's flushes
    cut_keys: Callable[[list[str]], list[str]] = lambda keys: keys  # the recordings that have an end to cut


# --- OpenAI Chat Completions ----------------------------------------------------------------------------

def _openai_sent(key: str, sent: Request) -> None:
    assert sent.path == "/v1/chat/completions"
    assert sent.json["model"] == checks.expected(key)["model"]
    assert sent.json["stream"] is True
    assert sent.json["messages"] == [{"role": "user", "content": "hi"}]


def _openai_cut_off(key: str) -> None:
    """Cut before the first event with a finish reason (the end is that or the ``[DONE]`` line after it)."""
    body = pf.body(key)
    finish = re.search(rb'"finish_reason":\s*"', body)
    at = finish.start() if finish else body.index(b"data: [DONE]")
    outcome = read_openai_chat(key, [body[:body.rindex(b"\n\n", 0, at) + 2]])
    assert outcome.error is not None and outcome.error.code == "stream_error"
    assert "[DONE] line or finish reason" in outcome.error.message
    partial = outcome.error.partial
    assert partial is not None and partial.text == outcome.text
    assert checks.expected(key)["text"].startswith(partial.text)


OPENAI_CHAT = WireFormat(
    "openai", pf.keys("openai-chat-completions-stream"), lambda key: "/v1/chat/completions",
    lambda key, server: OpenAIChatAdapter(ProviderConfig(id=key.split("/")[0], base_url=server.url + "/v1")),
    lambda key: ModelRequest(model=checks.expected(key)["model"], messages=HI), read_openai_chat,
    checks.check_openai_chat, _openai_sent, _openai_cut_off, rechunk_examples=40, http_rechunk_examples=3,
    cut_keys=lambda keys: [k for k in keys if not pf.available() or not checks.expected(k)["errors"]])


# --- OpenAI Responses -------------------------------------------------------------------------------------

def _responses_reader() -> ResponsesReader:
    return ResponsesReader("OpenAI", "openai-responses")


def _responses_sent(key: str, sent: Request) -> None:
    assert sent.json["input"] == [{"role": "user", "content": "hi"}] and sent.json["stream"] is True
    assert sent.header("authorization") == "Bearer test-key-not-real"


def _events_before(key: str, marker: bytes) -> list[bytes]:
    """The SSE body up to the end of the last event before the one containing ``marker``, in one piece."""
    body = pf.body(key)
    return [body[:body.rindex(b"\n\n", 0, body.index(marker)) + 2]]


def _responses_cut_off(key: str) -> None:
    outcome = read_pieces(_responses_reader(), SSEFrames(), _events_before(key, b'"type":"response.completed"'))
    assert outcome.error is not None and "response.completed" in outcome.error.message
    assert outcome.error.partial is not None and outcome.error.partial.text == checks.expected(key)["text"]


OPENAI_RESPONSES = WireFormat(
    "openai-responses", pf.keys("openai-responses-stream"), lambda key: "/v1/responses",
    lambda key, server: OpenAIResponsesAdapter(
        provider_from_preset("openai-responses", base_url=server.url + "/v1", api_key=KEY)),
    lambda key: ModelRequest(model=checks.expected(key)["model"], messages=HI),
    lambda key, pieces: read_pieces(_responses_reader(), SSEFrames(), pieces),
    checks.check_openai_responses, _responses_sent, _responses_cut_off, rechunk_examples=25,
    http_rechunk_examples=2,
    cut_keys=lambda keys: [k for k in keys if not pf.available() or not checks.expected(k)["errors"]])


# --- Anthropic Messages -------------------------------------------------------------------------------------

def _anthropic_sent(key: str, sent: Request) -> None:
    assert sent.header("x-api-key") == "test-key-not-real"
    assert sent.header("anthropic-version") == "2023-06-01"
    assert sent.json["stream"] is True
    assert sent.json["messages"] == [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]


def _anthropic_cut_off(key: str) -> None:
    body = pf.body(key)
    cut_at = body.index(b"event: message_stop")
    outcome = read_pieces(AnthropicReader("Anthropic"), SSEFrames(), [body[:cut_at]])
    assert outcome.error is not None and outcome.error.code == "stream_error"
    assert "message_stop" in outcome.error.message
    partial = outcome.error.partial
    assert partial is not None and partial.text == checks.expected(key)["text"]


ANTHROPIC = WireFormat(
    "anthropic", pf.keys("anthropic-messages-stream"), lambda key: "/v1/messages",
    lambda key, server: AnthropicAdapter(provider_from_preset("anthropic", base_url=server.url + "/v1",
                                                              api_key=KEY)),
    lambda key: ModelRequest(model=checks.expected(key)["model"], messages=HI),
    lambda key, pieces: read_pieces(AnthropicReader("Anthropic"), SSEFrames(), pieces),
    checks.check_anthropic, _anthropic_sent, _anthropic_cut_off, rechunk_examples=30, http_rechunk_examples=2)


# --- Gemini ---------------------------------------------------------------------------------------------------

def _gemini_framing(key: str) -> FrameDecoder:
    return JSONArrayFrames() if key.endswith(".json") else SSEFrames()


def _gemini_path(key: str) -> str:
    return f"/v1beta/models/{checks.expected(key)['model_version']}:streamGenerateContent"


def _gemini_sent(key: str, sent: Request) -> None:
    assert sent.target == _gemini_path(key) + "?alt=sse"
    assert sent.header("x-goog-api-key") == "test-key-not-real"
    assert sent.json["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]


def _gemini_cut_off(key: str) -> None:
    body = pf.body(key)
    cut_at = body.rindex(b'"finishReason"')
    outcome = read_pieces(GeminiReader("Gemini"), _gemini_framing(key), [body[:cut_at]])
    assert outcome.error is not None and outcome.error.code == "stream_error"
    assert "finishReason" in outcome.error.message and outcome.error.partial is not None


GEMINI = WireFormat(
    "gemini", (pf.keys("gemini-streamGenerateContent-sse") + pf.keys("gemini-streamGenerateContent-json-array")
               if pf.available() else [pf.ABSENT]), _gemini_path,
    lambda key, server: GeminiAdapter(provider_from_preset("gemini", base_url=server.url + "/v1beta", api_key=KEY)),
    lambda key: ModelRequest(model=checks.expected(key)["model_version"], messages=HI),
    lambda key, pieces: read_pieces(GeminiReader("Gemini"), _gemini_framing(key), pieces),
    checks.check_gemini, _gemini_sent, _gemini_cut_off, rechunk_examples=30, http_rechunk_examples=2)


# --- Ollama native ------------------------------------------------------------------------------------------

def _ollama_sent(key: str, sent: Request) -> None:
    assert sent.json["stream"] is True and sent.header("authorization") is None


def _ollama_cut_off(key: str) -> None:
    lines = pf.body(key).splitlines(keepends=True)
    outcome = read_pieces(OllamaReader("Ollama"), NDJSONFrames(), lines[:-1])
    assert outcome.error is not None and outcome.error.code == "stream_error"
    assert outcome.error.partial is not None and outcome.error.partial.text


OLLAMA = WireFormat(
    "ollama", pf.keys("ollama-api-chat-ndjson"), lambda key: "/api/chat",
    lambda key, server: OllamaAdapter(provider_from_preset("ollama-native", base_url=server.url)),
    lambda key: ModelRequest(model=checks.expected(key)["model"], messages=HI),
    # think tags on (the preset's default) must not disturb text without tags
    lambda key, pieces: read_pieces(OllamaReader("Ollama", think_tags=True), NDJSONFrames(), pieces),
    checks.check_ollama, _ollama_sent, _ollama_cut_off, rechunk_examples=40, http_rechunk_examples=2,
    served=lambda key: pf.body(key).splitlines(keepends=True))


# --- Cohere v2 ----------------------------------------------------------------------------------------------

def _cohere_sent(key: str, sent: Request) -> None:
    assert sent.json["messages"] == [{"role": "user", "content": "hi"}] and sent.json["stream"] is True
    assert sent.header("authorization") == "Bearer test-key-not-real"


def _cohere_cut_off(key: str) -> None:
    outcome = read_pieces(CohereReader("Cohere"), SSEFrames(), _events_before(key, b'"type":"message-end"'))
    assert outcome.error is not None and "message-end" in outcome.error.message
    assert outcome.error.partial is not None


COHERE = WireFormat(
    "cohere", pf.keys("cohere-v2-chat-stream"), lambda key: "/v2/chat",
    lambda key, server: CohereAdapter(provider_from_preset("cohere", base_url=server.url, api_key=KEY)),
    lambda key: ModelRequest(model="m", messages=HI),
    lambda key, pieces: read_pieces(CohereReader("Cohere"), SSEFrames(), pieces),
    checks.check_cohere, _cohere_sent, _cohere_cut_off, rechunk_examples=30, http_rechunk_examples=2)


FORMATS = [OPENAI_CHAT, OPENAI_RESPONSES, ANTHROPIC, GEMINI, OLLAMA, COHERE]


def cases(keys_of: Callable[[WireFormat], list[str]] = lambda f: f.keys) -> list[Any]:
    return [pytest.param(f, key, id=f"{f.name}:{key}") for f in FORMATS for key in keys_of(f)]


ALL = cases()
CUT_OFF = cases(lambda f: f.cut_keys(f.keys) if f.cut_off is not None else [])


def test_every_format_has_recordings() -> None:
    pf.require()
    assert {f.name: len(f.keys) for f in FORMATS} == {"openai": 29, "openai-responses": 10, "anthropic": 11,
                                                      "gemini": 10, "ollama": 2, "cohere": 4}


# --- the five ways ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("fmt", "key"), ALL)
async def test_recorded_stream_over_http(fmt: WireFormat, key: str, loopback: LoopbackServer) -> None:
    pf.require()
    loopback.add("POST", fmt.path(key), Response(headers={"Content-Type": pf.content_type(key)},
                                                 chunks=list(fmt.served(key))))
    fmt.check(key, await collect(fmt.adapter(key, loopback), fmt.request(key)))
    [sent] = loopback.requests
    fmt.check_sent(key, sent)


@pytest.mark.parametrize(("fmt", "key"), ALL)
def test_byte_by_byte(fmt: WireFormat, key: str) -> None:
    pf.require()
    data = pf.body(key)
    fmt.check(key, fmt.read(key, [data[i:i + 1] for i in range(len(data))]))


@pytest.mark.parametrize(("fmt", "key"), ALL)
def test_rechunked_through_decoder(fmt: WireFormat, key: str) -> None:
    pf.require()
    body = pf.body(key)

    @settings(max_examples=fmt.rechunk_examples, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(points=st.lists(st.integers(1, len(body) - 1), max_size=80))
    def run(points: list[int]) -> None:
        fmt.check(key, fmt.read(key, pf.cut(body, points)))

    run()


@pytest.mark.parametrize(("fmt", "key"), ALL)
def test_rechunked_over_http(fmt: WireFormat, key: str, loopback: LoopbackServer) -> None:
    pf.require()
    body = pf.body(key)

    @settings(max_examples=fmt.http_rechunk_examples, deadline=None, database=None)
    @given(points=st.lists(st.integers(1, len(body) - 1), min_size=1, max_size=30))
    def run(points: list[int]) -> None:
        loopback.add("POST", fmt.path(key), Response(headers={"Content-Type": pf.content_type(key)},
                                                     chunks=list(pf.cut(body, points))))
        fmt.check(key, asyncio.run(collect(fmt.adapter(key, loopback), fmt.request(key))))

    run()


@pytest.mark.parametrize(("fmt", "key"), CUT_OFF)
def test_cut_off_before_the_end_marker_keeps_the_partial_answer(fmt: WireFormat, key: str) -> None:
    pf.require()
    assert fmt.cut_off is not None
    fmt.cut_off(key)
