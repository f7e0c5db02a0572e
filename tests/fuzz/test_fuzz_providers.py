"""Fuzzing each wire format's reader end to end: a loopback server answers a real adapter with a mutated
stream (wrong-typed fields, odd event names, a cut body, another content type, an error status), inside a real
``RunLoop`` recorded into a real history.

Property: the run ends (never an exception other than the loop's own handling of ``ProviderError``), emits one
``done`` last, and the user's question is in the database with the run no longer marked running.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from app.storage import History
from app.storage.run_recorder import RunRecorder
from orchestration.events import Done
from orchestration.limits import LoopLimits
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.providers import adapter_for
from orchestration.providers.presets import KIND_PRESETS, provider_from_preset
from tests.fuzz.strategies import encode_json, hostile_text, json_values, mutated
from tests.support import provider_wire as wire
from tests.support.hypothesis_profiles import budget
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_chunks
from tools import default_registry

CALC = ("call_1", "calculate", {"expression": "6*7"})
Frames = list[list[Any]]  # [event name or None, payload]; a list so the fuzzer can replace either
SEEDS: dict[str, tuple[str, Frames]] = {
    "openai": ("sse", [[None, c] for c in stream_chunks("Hello there", reasoning="hm", calls=[CALC])]),
    "anthropic": ("sse", [[n, p] for n, p in wire.anthropic_events(text="Hello there", thinking="hm",
                                                                    signature="sig", calls=[CALC])]),
    "gemini": ("sse", [[None, c] for c in wire.gemini_chunks(text="Hello there", thought="hm", calls=[CALC],
                                                             signature="sig")]),
    "ollama": ("ndjson", [[None, line] for line in wire.ollama_lines(text="Hello there", thinking="hm",
                                                                      calls=[CALC])]),
    "openai-responses": ("sse", [[n, p] for n, p in wire.responses_events(text="Hello there", summary=["hm"],
                                                                           calls=[CALC])]),
    "cohere": ("sse", [[n, p] for n, p in wire.cohere_events(
        text="Hello there", thinking="hm", calls=[("call_1", "calculate", '{"expression": "6*7"}')])]),
}
NATIVE_TYPES = {"sse": "text/event-stream", "ndjson": "application/x-ndjson"}
ERROR_BODY = {"error": {"message": "bad request", "type": "invalid_request_error", "code": "invalid", "status": 400}}
PROMPT = "What is 6 times 7? é 😀"


def _body(form: str, frames: Any, done: bool) -> bytes:
    if not isinstance(frames, list):
        return encode_json(frames).encode()
    out = []
    for frame in frames:
        name, payload = (frame[0], frame[1]) if isinstance(frame, list) and len(frame) == 2 else (None, frame)
        data = encode_json(payload)
        if form == "ndjson":
            out.append(data + "\n")
        else:
            event = f"event: {name}\n" if isinstance(name, str) and "\n" not in name and "\r" not in name else ""
            out.append(f"{event}data: {data}\n\n")
    if done and form == "sse":
        out.append("data: [DONE]\n\n")
    return "".join(out).encode("utf-8", "surrogatepass")


@st.composite
def answers(draw: st.DrawFn, kind: str) -> Response:
    form, seed = SEEDS[kind]
    status = draw(st.sampled_from([200] * 6 + [400, 401, 404, 422, 500]))
    if status != 200:
        body = draw(st.one_of(mutated(ERROR_BODY).map(encode_json), json_values.map(encode_json), hostile_text))
        return Response.body(body.encode("utf-8", "surrogatepass"), "application/json", status=status)
    frames = draw(st.one_of(st.just(seed), mutated(seed, None), mutated(seed, "wrong type"), mutated(seed)))
    content_type = draw(st.sampled_from([NATIVE_TYPES[form]] * 4 + ["application/json", "text/plain", ""]))
    if content_type == "application/json" and draw(st.booleans()):
        frames = draw(st.sampled_from(seed))[1]  # one payload as a whole, non-streamed body
    body = _body(form, frames, draw(st.booleans()))
    if draw(st.booleans()):
        body = body[: draw(st.integers(min_value=0, max_value=len(body)))]  # the connection ends early
    pieces = draw(st.integers(min_value=1, max_value=40))
    return Response(headers={"Content-Type": content_type} if content_type else {},
                    chunks=[body[i:i + pieces] for i in range(0, len(body), pieces)] or [b""])


class _Server:
    """A loopback server answering every request with the response the current example drew."""

    def __init__(self) -> None:
        self.response = Response()
        self.loopback = LoopbackServer(handler=self._answer)

    def _answer(self, request: Request) -> Response:
        return self.response


@pytest.fixture(scope="module")
def server() -> Iterator[_Server]:
    scripted = _Server()
    with scripted.loopback:
        yield scripted


@pytest.fixture(scope="module")
def history(tmp_path_factory) -> Iterator[History]:
    with History.open(tmp_path_factory.mktemp("providers") / "history.db") as opened:
        yield opened


def _run(server: _Server, history: History, kind: str, response: Response) -> None:
    server.response = response
    config = provider_from_preset(KIND_PRESETS[kind], base_url=server.loopback.url + "/v1",
                                  api_key="test-key-not-real").model_copy(update={"max_attempts": 1})
    conversation = history.create_conversation()
    recorder = RunRecorder(history, conversation)
    ids = recorder.begin(PROMPT, provider=config.id, model="m")
    emitted: list[Any] = []

    def emit(event: Any) -> None:
        emitted.append(event)
        recorder(event)

    loop = RunLoop(adapter_for(config), default_registry(), emit, limits=LoopLimits(max_iterations=2))
    request = RunRequest(model="m", messages=[UserMessage(content=PROMPT)], tool_names=["calculate"],
                         run_id=ids.run_id)
    result = asyncio.run(loop.run(request))
    assert isinstance(emitted[-1], Done) and sum(isinstance(e, Done) for e in emitted) == 1
    assert result.finish_reason == emitted[-1].finish_reason
    stored = history.branch(conversation)
    assert stored[0].role == "user" and stored[0].content == PROMPT
    (run,) = history.runs(conversation)
    assert run.status != "running"
    json.dumps([e.model_dump(mode="json") for e in emitted])


@pytest.mark.parametrize("kind", sorted(SEEDS))
def test_the_seed_stream_is_a_complete_answer(server, history, kind) -> None:
    """The stream the fuzzer mutates is read as a whole answer, so mutations start from a working reader."""
    form, seed = SEEDS[kind]
    server.response = Response.body(_body(form, seed, True), NATIVE_TYPES[form])
    config = provider_from_preset(KIND_PRESETS[kind], base_url=server.loopback.url + "/v1", api_key="k")
    emitted: list[Any] = []
    result = asyncio.run(RunLoop(adapter_for(config), default_registry(), emitted.append,
                                 limits=LoopLimits(max_iterations=1)).run(
        RunRequest(model="m", messages=[UserMessage(content="hi")], tool_names=["calculate"])))
    assert result.error is None and "Hello there" in result.answer


@pytest.mark.parametrize("kind", sorted(SEEDS))
@budget(0.3)
@given(data=st.data())
def test_any_answer_ends_the_run_cleanly_and_keeps_the_question(server, history, kind, data) -> None:
    _run(server, history, kind, data.draw(answers(kind)))


def _wrong_typed_frame(kind: str) -> st.SearchStrategy[tuple[str, int, Any]]:
    frames = SEEDS[kind][1]
    return st.tuples(st.just(kind), st.integers(min_value=0, max_value=len(frames) - 1),
                     st.sampled_from(frames).flatmap(lambda f: mutated(f[1], "wrong type")))


@example(case=("openai", 0, {"choices": {}, "id": 5}))
@example(case=("openai", 0, {"choices": [{"delta": {"content": 5}}]}))
@example(case=("anthropic", 1, {"type": "content_block_delta", "index": "0", "delta": {"text": []}}))
@example(case=("gemini", 0, {"candidates": [{"content": {"parts": "text"}}]}))
@example(case=("ollama", 0, {"message": {"content": 5, "tool_calls": {}}, "done": "yes"}))
@example(case=("openai-responses", 1, {"type": "response.output_text.delta", "delta": 5}))
@example(case=("cohere", 1, {"type": "content-delta", "delta": {"message": {"content": 5}}}))
@example(case=("openai", 1, {"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": 5,
                                          "native_finish_reason": []}]}))
@example(case=("openai", 1, {"choices": [], "usage": {"prompt_tokens": "5", "completion_tokens_details": 5}}))
@example(case=("openai", 1, {"choices": [{"index": 0, "delta": {}, "finish_reason": ["stop"]}]}))
@example(case=("openai", 1, {"choices": [], "usage": {"prompt_tokens": 10**400, "completion_tokens": -3}}))
@example(case=("ollama", 0, {"message": {"content": "hi"}, "done": True, "done_reason": 5,
                             "prompt_eval_count": "x"}))
@example(case=("anthropic", 0, {"type": "message_start", "message": {"id": 5, "model": [],
                                                                      "usage": {"input_tokens": "a"}}}))
@example(case=("gemini", 0, {"candidates": [{"content": {"parts": [{"text": "hi"}]}, "finishReason": 5}],
                             "usageMetadata": {"promptTokenCount": "x"}, "responseId": 5}))
@example(case=("cohere", 0, {"type": "message-end", "delta": {"finish_reason": ["ERROR"],
                                                               "usage": {"tokens": {"input_tokens": "x"}}}}))
@example(case=("openai-responses", 0, {"type": "response.completed", "response": {
    "id": 5, "status": "incomplete", "usage": {"input_tokens": "x", "output_tokens_details": 5},
    "incomplete_details": 5}}))
@example(case=("anthropic", 0, {"type": "content_block_delta", "index": 0,
                                "delta": {"type": "signature_delta", "signature": 5}}))
@example(case=("anthropic", 0, {"type": "content_block_start", "index": 0,
                                "content_block": {"type": "thinking", "thinking": 5, "signature": ""}}))
@given(case=st.sampled_from(sorted(SEEDS)).flatmap(_wrong_typed_frame))
@budget(0.3)
def test_wrong_typed_fields_in_one_frame_are_a_provider_error(server, history, case) -> None:
    kind, position, frame = case
    form, seed = SEEDS[kind]
    name = seed[position][0] if isinstance(frame, dict) and frame.get("type") == seed[position][0] else None
    frames = [*seed[:position], [name, frame], *seed[position + 1:]]
    _run(server, history, kind, Response.body(_body(form, frames, True), NATIVE_TYPES[form]))
