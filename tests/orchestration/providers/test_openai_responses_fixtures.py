"""The OpenAI Responses adapter against the real recorded streams in ../shared/fixtures/providers.

Every ``openai-responses-stream`` entry (OpenAI, OpenRouter and DeepSeek recordings, and the AI SDK chunk file
wrapped as SSE) is served over loopback HTTP and must come out as EXPECTED.json says: text, function calls
(call ids, item ids, raw arguments), reasoning summary parts and reasoning text, usage, or the mid-stream
error with the partial answer kept. Re-chunked bodies must give the same result. The Responses HTTP error
bodies must become typed errors. Everything skips when ../shared is absent.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestration.engine import ModelRequest, ResponseComplete, ResponseStarted, UsageReport
from orchestration.errors import BadRequestError, StreamError
from orchestration.messages import ReasoningPart, UserMessage
from orchestration.providers.framing import SSEFrames
from orchestration.providers.openai_responses import OpenAIResponsesAdapter, ResponsesReader
from orchestration.providers.presets import provider_from_preset
from tests.support import provider_fixtures as pf
from tests.support.adapter_runs import Outcome, Sleeps, collect, read_pieces
from tests.support.loopback import LoopbackServer, Response

pytestmark = pytest.mark.shared

STREAMS = pf.keys("openai-responses-stream")
COMPLETED = [k for k in STREAMS if not pf.available() or not pf.entry(k)["expected"]["errors"]]
HTTP_ERRORS = [k for k in pf.keys("http-error-body", prefix=("openai/",)) if "responses" in k] or [pf.ABSENT]
PATH = "/v1/responses"


def expected(key: str) -> dict[str, Any]:
    return pf.entry(key)["expected"]


def adapter(server: LoopbackServer, **kwargs: Any) -> OpenAIResponsesAdapter:
    config = provider_from_preset("openai-responses", base_url=server.url + "/v1", api_key="test-key-not-real")
    return OpenAIResponsesAdapter(config, **kwargs)


def reader() -> ResponsesReader:
    return ResponsesReader("OpenAI", "openai-responses")


def expected_reasoning(exp: dict[str, Any]) -> str:
    return "\n\n".join(exp["reasoning_summary_parts"]) + exp["reasoning_text"]


def check_outcome(key: str, outcome: Outcome) -> None:
    exp = expected(key)
    started = outcome.events[0]
    assert isinstance(started, ResponseStarted)
    assert (started.response_id, started.model) == (exp["response_id"], exp["model"])
    if exp["errors"]:
        error = outcome.error
        assert isinstance(error, StreamError)
        assert exp["errors"][0]["error"]["message"] in error.message
        assert error.provider_code == exp["errors"][0]["error"]["code"]
        assert "Check your plan and billing." in error.message
        assert error.partial is not None and error.partial.text == exp["text"]
        assert not any(isinstance(e, ResponseComplete) for e in outcome.events)
        return
    done = outcome.complete
    message = done.message
    assert (message.response_id, message.model) == (exp["response_id"], exp["model"])
    assert message.text == exp["text"]
    assert message.reasoning == expected_reasoning(exp)
    want = [(c["call_id"], c["name"], c["arguments"], c["id"]) for c in exp["function_calls"]]
    assert [(c.id, c.name, c.arguments, c.opaque["item_id"]) for c in message.tool_calls] == want
    assert done.finish_reason == ("tool_calls" if want else "stop")
    assert done.native_finish_reason == exp["status"]
    reasoning_items = [p for p in message.parts if isinstance(p, ReasoningPart)]
    kinds = [t for t in exp["output_item_types"] if t == "reasoning"]
    assert len(reasoning_items) == len(kinds)
    for part in reasoning_items:  # the whole item is kept to be sent back
        assert part.provider_format == "openai-responses" and part.details[0]["type"] == "reasoning"
    store = message.provider_data["openai-responses"]["store"]
    assert store is (key == "openai/responses-text-gpt-4o.sse" or store)  # as the server reported it
    usage = exp["usage"]
    assert done.usage is not None and done.usage.raw == usage
    assert (done.usage.input_tokens, done.usage.output_tokens) == (usage["input_tokens"], usage["output_tokens"])
    assert done.usage.reasoning_tokens == usage["output_tokens_details"]["reasoning_tokens"]
    assert done.usage.cached_tokens == usage["input_tokens_details"]["cached_tokens"]
    assert [e.usage for e in outcome.events if isinstance(e, UsageReport)][-1] == done.usage
    assert outcome.text == message.text and outcome.reasoning == message.reasoning
    assert outcome.announced == [(c.id, c.name, c.arguments) for c in message.tool_calls]


def test_all_responses_fixtures_are_found() -> None:
    pf.require()
    assert len(STREAMS) == 10
    assert set(HTTP_ERRORS) == {"openai/error-400-invalid-param-responses.json",
                                "openai/error-400-model-not-found-responses.json"}


@pytest.mark.parametrize("key", STREAMS)
async def test_recorded_stream_over_http(key: str, loopback: LoopbackServer) -> None:
    pf.require()
    loopback.add("POST", PATH, Response(headers={"Content-Type": pf.content_type(key)},
                                        chunks=list(pf.split_events(pf.body(key)))))
    outcome = await collect(adapter(loopback), ModelRequest(model=expected(key)["model"],
                                                           messages=[UserMessage(content="hi")]))
    check_outcome(key, outcome)
    [sent] = loopback.requests
    assert sent.json["input"] == [{"role": "user", "content": "hi"}] and sent.json["stream"] is True
    assert sent.header("authorization") == "Bearer test-key-not-real"


@pytest.mark.parametrize("key", STREAMS)
def test_byte_by_byte(key: str) -> None:
    pf.require()
    data = pf.body(key)
    check_outcome(key, read_pieces(reader(), SSEFrames(), [data[i:i + 1] for i in range(len(data))]))


@pytest.mark.parametrize("key", STREAMS)
@settings(max_examples=25, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_rechunked_through_decoder(key: str, data: st.DataObject) -> None:
    pf.require()
    body = pf.body(key)
    points = data.draw(st.lists(st.integers(1, len(body) - 1), max_size=80), label="cuts")
    check_outcome(key, read_pieces(reader(), SSEFrames(), pf.cut(body, points)))


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


@pytest.mark.parametrize("key", COMPLETED)
def test_cut_off_before_response_completed(key: str) -> None:
    pf.require()
    body = pf.body(key)
    cut_at = body.index(b'"type":"response.completed"')
    outcome = read_pieces(reader(), SSEFrames(), [body[:body.rindex(b"\n\n", 0, cut_at) + 2]])
    assert outcome.error is not None and "response.completed" in outcome.error.message
    assert outcome.error.partial is not None and outcome.error.partial.text == expected(key)["text"]


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
    assert type(error) is BadRequestError and error.status == 400
    assert exp["body_json"]["error"]["message"] in error.message
    assert error.message.startswith("OpenAI (Responses API) rejected the request (400).")
    assert loopback.count == 1 and sleeps.calls == []
