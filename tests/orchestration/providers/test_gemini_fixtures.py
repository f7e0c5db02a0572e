"""The Gemini adapter against the real recorded streams in ../shared/fixtures/providers.

Both stream framings (SSE with CRLF, and the streamed JSON array) are served over loopback HTTP and must come
out as EXPECTED.json says (text, thoughts, function calls with or without ids, thought signatures on the part
they came with, usage); the same bodies re-chunked at arbitrary byte boundaries must give the same result.
The Gemini HTTP error bodies (one served as text/event-stream) must become the right typed errors.
Everything skips when ../shared is absent.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestration.engine import ModelRequest, ResponseStarted, UsageReport
from orchestration.errors import NotFoundError, PermissionDeniedError, ProviderError
from orchestration.messages import UserMessage
from orchestration.providers.framing import FrameDecoder, JSONArrayFrames, SSEFrames
from orchestration.providers.gemini import GeminiAdapter, GeminiReader
from orchestration.providers.presets import provider_from_preset
from tests.support import provider_fixtures as pf
from tests.support.adapter_runs import Outcome, Sleeps, collect, read_pieces
from tests.support.loopback import LoopbackServer, Response

pytestmark = pytest.mark.shared

SSE = pf.keys("gemini-streamGenerateContent-sse")
JSON_ARRAY = pf.keys("gemini-streamGenerateContent-json-array")
STREAMS = SSE + JSON_ARRAY if pf.available() else [pf.ABSENT]
HTTP_ERRORS = pf.keys("http-error-body", prefix=("gemini/",))
FINISH = {"STOP": "stop"}


def expected(key: str) -> dict[str, Any]:
    return pf.entry(key)["expected"]


def framing_for(key: str) -> FrameDecoder:
    return JSONArrayFrames() if key.endswith(".json") else SSEFrames()


def adapter(server: LoopbackServer, **kwargs: Any) -> GeminiAdapter:
    config = provider_from_preset("gemini", base_url=server.url + "/v1beta", api_key="test-key-not-real")
    return GeminiAdapter(config, **kwargs)


def path_for(model: str) -> str:
    return f"/v1beta/models/{model}:streamGenerateContent"


def check_outcome(key: str, outcome: Outcome) -> None:
    exp = expected(key)
    done = outcome.complete
    started = outcome.events[0]
    assert isinstance(started, ResponseStarted)
    assert (started.response_id, started.model) == (exp["response_id"], exp["model_version"])
    message = done.message
    assert message.text == exp["text"]
    assert message.reasoning == exp["thought_text"]
    calls = message.tool_calls
    assert len(calls) == len(exp["function_calls"])
    for call, want in zip(calls, exp["function_calls"], strict=True):
        assert call.name == want["name"]
        assert call.parsed_arguments() == want["args"]
        if want["id"] is None:
            assert call.id.startswith("call_") and "gemini_id" not in call.opaque  # assigned, never sent back
        else:
            assert call.id == want["id"] == call.opaque["gemini_id"]
    signatures = [{"on_part": "functionCall", "length": len(c.opaque["thought_signature"])}
                  for c in calls if "thought_signature" in c.opaque]
    text_signature = (message.provider_data.get("gemini") or {}).get("text_signature")
    if text_signature:
        signatures.insert(0, {"on_part": "text", "length": len(text_signature)})
    assert signatures == exp["thought_signatures"]
    assert done.native_finish_reason == exp["finish_reason"]
    assert done.finish_reason == ("tool_calls" if calls else FINISH[exp["finish_reason"]])
    usage = exp["usage_metadata"]
    assert done.usage is not None and done.usage.raw == usage
    assert done.usage.input_tokens == usage["promptTokenCount"]
    assert done.usage.reasoning_tokens == usage.get("thoughtsTokenCount", 0)
    assert done.usage.output_tokens == usage["candidatesTokenCount"] + usage.get("thoughtsTokenCount", 0)
    assert [e.usage for e in outcome.events if isinstance(e, UsageReport)][-1] == done.usage
    assert outcome.text == message.text and outcome.reasoning == message.reasoning
    assert outcome.announced == [(c.id, c.name, c.arguments) for c in calls]


def test_all_gemini_fixtures_are_found() -> None:
    pf.require()
    assert (len(SSE), len(JSON_ARRAY)) == (7, 3)
    assert len(HTTP_ERRORS) == 3


@pytest.mark.parametrize("key", STREAMS)
async def test_recorded_stream_over_http(key: str, loopback: LoopbackServer) -> None:
    pf.require()
    model = expected(key)["model_version"]
    loopback.add("POST", path_for(model), Response(headers={"Content-Type": pf.content_type(key)},
                                                   chunks=list(pf.split_events(pf.body(key)))))
    outcome = await collect(adapter(loopback), ModelRequest(model=model, messages=[UserMessage(content="hi")]))
    check_outcome(key, outcome)
    [sent] = loopback.requests
    assert sent.target == path_for(model) + "?alt=sse"
    assert sent.header("x-goog-api-key") == "test-key-not-real"
    assert sent.json["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]


@pytest.mark.parametrize("key", STREAMS)
def test_byte_by_byte(key: str) -> None:
    pf.require()
    data = pf.body(key)
    check_outcome(key, read_pieces(GeminiReader("Gemini"), framing_for(key),
                                   [data[i:i + 1] for i in range(len(data))]))


@pytest.mark.parametrize("key", STREAMS)
@settings(max_examples=30, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_rechunked_through_decoder(key: str, data: st.DataObject) -> None:
    pf.require()
    body = pf.body(key)
    points = data.draw(st.lists(st.integers(1, len(body) - 1), max_size=80), label="cuts")
    check_outcome(key, read_pieces(GeminiReader("Gemini"), framing_for(key), pf.cut(body, points)))


@pytest.mark.parametrize("key", STREAMS)
def test_rechunked_over_http(key: str, loopback: LoopbackServer) -> None:
    pf.require()
    body = pf.body(key)
    model = expected(key)["model_version"]

    @settings(max_examples=2, deadline=None, database=None)
    @given(points=st.lists(st.integers(1, len(body) - 1), min_size=1, max_size=30))
    def run(points: list[int]) -> None:
        loopback.add("POST", path_for(model), Response(headers={"Content-Type": pf.content_type(key)},
                                                       chunks=list(pf.cut(body, points))))
        request = ModelRequest(model=model, messages=[UserMessage(content="hi")])
        check_outcome(key, asyncio.run(collect(adapter(loopback), request)))

    run()


@pytest.mark.parametrize("key", STREAMS)
def test_cut_off_before_the_finish_reason_is_an_error(key: str) -> None:
    pf.require()
    body = pf.body(key)
    cut_at = body.rindex(b'"finishReason"')
    outcome = read_pieces(GeminiReader("Gemini"), framing_for(key), [body[:cut_at]])
    assert outcome.error is not None and outcome.error.code == "stream_error"
    assert "finishReason" in outcome.error.message and outcome.error.partial is not None


ERROR_TYPES: dict[int, type[ProviderError]] = {403: PermissionDeniedError, 404: NotFoundError}


@pytest.mark.parametrize("key", HTTP_ERRORS)
async def test_http_error_body_becomes_typed_error(key: str, loopback: LoopbackServer) -> None:
    pf.require()
    exp = expected(key)
    raw = (pf.ROOT / key).read_bytes()
    loopback.always("POST", path_for("gemini-2.0-flash"),
                    Response(status=exp["http_status"], headers={"Content-Type": pf.content_type(key)},
                             chunks=[raw]))
    sleeps = Sleeps()
    outcome = await collect(adapter(loopback, sleep=sleeps), ModelRequest(
        model="gemini-2.0-flash", messages=[UserMessage(content="hi")]))
    error = outcome.error
    assert type(error) is ERROR_TYPES[exp["http_status"]]
    assert error.status == exp["http_status"] and error.body == raw.decode()
    assert error.message.startswith("Google Gemini ")
    assert exp["body_json"]["error"]["message"] in error.message
    assert loopback.count == 1 and sleeps.calls == []


async def test_json_error_served_as_sse_with_status_200(loopback: LoopbackServer) -> None:
    """Gemini may answer an error body with text/event-stream and no SSE framing; it is still an error."""
    pf.require()
    raw = (pf.ROOT / "gemini/error-404-on-stream-endpoint-with-event-stream-content-type.json").read_bytes()
    loopback.add("POST", path_for("gemini-x"), Response(headers={"Content-Type": "text/event-stream"},
                                                        chunks=[raw[:50], raw[50:]]))
    outcome = await collect(adapter(loopback), ModelRequest(model="gemini-x", messages=[UserMessage(content="hi")]))
    assert outcome.error is not None and outcome.error.code == "stream_error"
    assert "is not found for API version v1beta" in outcome.error.message
    assert outcome.error.status == 404
