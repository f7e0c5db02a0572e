"""OpenAIChatAdapter over loopback HTTP: odd servers, broken streams, partial answers, dialect details."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from orchestration.engine import (
    ModelRequest,
    ProviderEvent,
    ReasoningChunk,
    ResponseComplete,
    TextChunk,
    ToolCallReady,
)
from orchestration.errors import (
    ConnectionFailedError,
    MalformedResponseError,
    ProviderError,
    StreamError,
    StreamIdleError,
)
from orchestration.messages import UserMessage
from orchestration.providers.config import Capabilities, ProviderConfig
from orchestration.providers.openai_chat import ChatChunkReader, OpenAIChatAdapter
from orchestration.providers.presets import provider_from_preset
from tests.support.loopback import Chunk, LoopbackServer, Response

PATH = "/v1/chat/completions"
REQUEST = ModelRequest(model="m", messages=[UserMessage(content="hi")])


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> dict[str, Any]:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    return {"id": "r1", "model": "m", "choices": choices, **extra}


def adapter_for(server: LoopbackServer, **overrides: Any) -> OpenAIChatAdapter:
    config = ProviderConfig(id="prov", base_url=server.url + "/v1", max_attempts=1, **overrides)
    return OpenAIChatAdapter(config)


async def collect(adapter: OpenAIChatAdapter, request: ModelRequest = REQUEST) -> list[ProviderEvent]:
    try:
        return [event async for event in adapter.stream(request)]
    finally:
        await adapter.aclose()


async def failure(adapter: OpenAIChatAdapter, request: ModelRequest = REQUEST) -> tuple[ProviderError,
                                                                                       list[ProviderEvent]]:
    events: list[ProviderEvent] = []
    try:
        async for event in adapter.stream(request):
            events.append(event)
    except ProviderError as error:
        return error, events
    finally:
        await adapter.aclose()
    raise AssertionError(f"no error; events: {events}")


def final(events: list[ProviderEvent]) -> ResponseComplete:
    last = events[-1]
    assert isinstance(last, ResponseComplete)
    return last


async def test_plain_stream_and_the_request_sent(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.sse([chunk({"role": "assistant", "content": ""}),
                                             chunk({"content": "Hel"}), chunk({"content": "lo"}, "stop"),
                                             chunk(usage={"prompt_tokens": 5, "completion_tokens": 2})],
                                            done=True))
    events = await collect(adapter_for(loopback))
    done = final(events)
    assert (done.message.text, done.finish_reason, done.native_finish_reason) == ("Hello", "stop", "stop")
    assert done.usage is not None and (done.usage.input_tokens, done.usage.output_tokens) == (5, 2)
    assert [e.text for e in events if isinstance(e, TextChunk)] == ["Hel", "lo"]
    [sent] = loopback.requests
    assert sent.json == {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True,
                         "stream_options": {"include_usage": True}}
    assert sent.header("accept-encoding") is not None


async def test_tool_call_announced_before_the_stream_ends(loopback: LoopbackServer) -> None:
    """Call 0 is complete (and handed out) as soon as call 1 starts, while the server is still sending."""
    first = [chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": "{}"}}]}),
             chunk({"tool_calls": [{"index": 1, "id": "b", "function": {"name": "g", "arguments": "{"}}]})]
    rest = [chunk({"tool_calls": [{"index": 1, "function": {"arguments": "}"}}]}, "tool_calls")]
    late = Chunk(Response.sse(rest).chunks[0], delay=0.3)
    loopback.add("POST", PATH, Response(headers={"Content-Type": "text/event-stream"}, chunks=[
        *[Response.sse([c]).chunks[0] for c in first], late, b"data: [DONE]\n\n"]))
    adapter = adapter_for(loopback)
    loop = asyncio.get_running_loop()
    start = loop.time()
    ready_at: dict[str, float] = {}
    seen: list[ProviderEvent] = []
    async for event in adapter.stream(REQUEST):
        seen.append(event)
        if isinstance(event, ToolCallReady):
            ready_at[event.call.id] = loop.time() - start
    await adapter.aclose()
    assert [c.id for c in final(seen).message.tool_calls] == ["a", "b"]
    assert ready_at["a"] < 0.2 <= ready_at["b"]  # "a" did not wait for the delayed last chunk


async def test_non_streaming_request(loopback: LoopbackServer) -> None:
    body = {"id": "r9", "model": "m", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None, "reasoning_content": "think",
        "tool_calls": [{"id": "c1", "type": "function",
                        "function": {"name": "f", "arguments": "{\"a\":1}"}}]}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 2}}
    loopback.add("POST", PATH, Response.json(body))
    events = await collect(adapter_for(loopback), REQUEST.model_copy(update={"stream": False}))
    done = final(events)
    assert done.message.reasoning == "think"
    assert [(c.id, c.arguments) for c in done.message.tool_calls] == [("c1", '{"a":1}')]
    assert done.finish_reason == "tool_calls" and done.message.response_id == "r9"
    assert "stream" not in loopback.requests[0].json and "stream_options" not in loopback.requests[0].json


async def test_server_that_ignores_stream_true(loopback: LoopbackServer) -> None:
    body = {"id": "r2", "model": "m", "choices": [{"index": 0, "finish_reason": "stop",
                                                   "message": {"role": "assistant", "content": "whole"}}]}
    loopback.add("POST", PATH, Response.json(body, chunk_size=7))
    done = final(await collect(adapter_for(loopback)))
    assert (done.message.text, done.finish_reason) == ("whole", "stop")


async def test_error_json_with_status_200(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.json({"error": {"message": "model is loading", "code": 503}}))
    error, _ = await failure(adapter_for(loopback))
    assert isinstance(error, StreamError) and "model is loading" in error.message


async def test_stream_cut_before_the_end_keeps_the_partial_answer(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.sse([chunk({"content": "Half an "}), chunk({"content": "answer"})]))
    error, events = await failure(adapter_for(loopback))
    assert type(error) is StreamError and "ended before the answer was complete" in error.message
    assert error.partial is not None and error.partial.text == "Half an answer"
    assert "".join(e.text for e in events if isinstance(e, TextChunk)) == "Half an answer"


async def test_finish_reason_without_done_marker_is_complete(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.sse([chunk({"content": "ok"}, "length")]))
    done = final(await collect(adapter_for(loopback)))
    assert (done.message.text, done.finish_reason) == ("ok", "length")


async def test_idle_stream_raises_with_partial(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.sse([chunk({"reasoning_content": "hmm"}), chunk({"content": "so"})],
                                            hang=True))
    error, _ = await failure(adapter_for(loopback, idle_timeout=0.2))
    assert isinstance(error, StreamIdleError)
    assert error.partial is not None and (error.partial.reasoning, error.partial.text) == ("hmm", "so")
    assert loopback.count == 1


async def test_connection_reset_mid_stream_raises_with_partial(loopback: LoopbackServer) -> None:
    calls = {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": "{\"a\""}}]}
    loopback.add("POST", PATH, Response.sse([chunk({"content": "x"}), chunk(calls)], close_abruptly=True))
    error, _ = await failure(adapter_for(loopback))
    assert isinstance(error, ConnectionFailedError)
    assert error.partial is not None and error.partial.text == "x"
    assert [(c.id, c.arguments) for c in error.partial.tool_calls] == [("c", '{"a"')]


async def test_malformed_data_line(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.sse([chunk({"content": "ok"}), "{not json"]))
    error, _ = await failure(adapter_for(loopback))
    assert isinstance(error, MalformedResponseError) and "{not json" in error.message
    assert error.partial is not None and error.partial.text == "ok"


async def test_error_event_frame(loopback: LoopbackServer) -> None:
    frame = {"error": {"message": "overloaded", "type": "server"}}
    loopback.add("POST", PATH, Response.sse([chunk({"content": "so far"}), ("error", frame)]))
    error, _ = await failure(adapter_for(loopback))
    assert type(error) is StreamError and "overloaded" in error.message and error.provider_code == "server"
    assert error.partial is not None and error.partial.text == "so far"


async def test_breaking_out_early_closes_cleanly(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.sse([chunk({"content": "a"}), chunk({"content": "b"})], hang=True))
    adapter = adapter_for(loopback)
    stream = adapter.stream(REQUEST)
    async for event in stream:
        if isinstance(event, TextChunk):
            break
    await stream.aclose()  # type: ignore[attr-defined]
    await adapter.aclose()


async def test_cancelling_a_hanging_stream(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.sse([chunk({"content": "a"})], hang=True))
    adapter = adapter_for(loopback)
    streaming = asyncio.Event()

    async def consume() -> None:
        async for event in adapter.stream(REQUEST):
            if isinstance(event, TextChunk):
                streaming.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(streaming.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await adapter.aclose()


async def test_think_tags_split_for_local_presets(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.sse([chunk({"content": "<thi"}), chunk({"content": "nk>weigh"}),
                                             chunk({"content": "ing</think>\n\nAns"}),
                                             chunk({"content": "wer"}, "stop")], done=True))
    config = provider_from_preset("ollama", base_url=loopback.url + "/v1")
    events = await collect(OpenAIChatAdapter(config))
    done = final(events)
    assert (done.message.reasoning, done.message.text) == ("weighing", "Answer")
    assert "".join(e.text for e in events if isinstance(e, ReasoningChunk)) == "weighing"
    # without the capability the text is left alone
    loopback.add("POST", PATH, Response.sse([chunk({"content": "<think>x</think>y"}, "stop")], done=True))
    done = final(await collect(adapter_for(loopback)))
    assert done.message.text == "<think>x</think>y" and done.message.reasoning == ""


async def test_groq_usage_only_in_x_groq(loopback: LoopbackServer) -> None:
    usage = {"prompt_tokens": 7, "completion_tokens": 3, "queue_time": 0.1}
    last = chunk({"content": "ok"}, "stop", x_groq={"id": "q", "usage": usage})
    loopback.add("POST", PATH, Response.sse([last], done=True))
    done = final(await collect(adapter_for(loopback)))
    assert done.usage is not None and done.usage.raw == usage and done.usage.input_tokens == 7


async def test_reasoning_summary_details_are_shown_once(loopback: LoopbackServer) -> None:
    summary = {"type": "reasoning.summary", "summary": "Plan: add.", "index": 0}
    encrypted = {"type": "reasoning.encrypted", "data": "enc", "index": 0}
    loopback.add("POST", PATH, Response.sse([
        chunk({"reasoning_details": [summary]}),
        chunk({"reasoning": " More.", "reasoning_details": [{**summary, "summary": " More."}]}),
        chunk({"reasoning_details": [encrypted], "content": "4"}, "stop")], done=True))
    done = final(await collect(adapter_for(loopback)))
    assert done.message.reasoning == "Plan: add. More."
    details = [d for p in done.message.parts if p.kind == "reasoning" for d in p.details]
    assert details == [{"type": "reasoning.summary", "summary": "Plan: add. More.", "index": 0}, encrypted]
    json.dumps(details)  # plain JSON, sent back next turn


async def test_refusal_is_text(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.sse([chunk({"refusal": "I can't help."}, "stop")], done=True))
    done = final(await collect(adapter_for(loopback)))
    assert done.message.text == "I can't help."


async def test_other_choices_are_ignored(loopback: LoopbackServer) -> None:
    body = {"id": "r", "model": "m", "choices": [
        {"index": 1, "delta": {"content": "other"}},
        {"index": 0, "delta": {"content": "mine"}, "finish_reason": "stop"}]}
    loopback.add("POST", PATH, Response.sse([body], done=True))
    assert final(await collect(adapter_for(loopback))).message.text == "mine"


async def test_streaming_capability_off_sends_a_plain_request(loopback: LoopbackServer) -> None:
    loopback.add("POST", PATH, Response.json({"id": "r", "model": "m", "choices": [
        {"index": 0, "finish_reason": "stop", "message": {"content": "plain"}}]}))
    config = ProviderConfig(id="p", base_url=loopback.url + "/v1", capabilities=Capabilities(streaming=False))
    done = final(await collect(OpenAIChatAdapter(config)))
    assert done.message.text == "plain" and "stream" not in loopback.requests[0].json


def test_odd_chunk_shapes_are_tolerated() -> None:
    reader = ChatChunkReader("p")
    reader.frame("message", {"id": "r", "choices": [{"index": None, "delta": {"content": "a"}}]})  # index null
    reader.frame("message", {"choices": ["junk", {"index": 0, "delta": None, "message": None}]})
    call = {"function": {"name": "f", "arguments": {"k": 1}}}  # arguments as an object, no index or id
    reader.frame("message", {"choices": [{"delta": {"tool_calls": ["junk", call]}}]})
    reader.frame("message", {"choices": None, "usage": None, "x_groq": "junk"})
    with pytest.raises(StreamError):
        reader.end()  # neither [DONE] nor a finish reason arrived
    done = final(reader.finish())
    assert done.message.text == "a"
    assert [(c.name, json.loads(c.arguments)) for c in done.message.tool_calls] == [("f", {"k": 1})]


def test_non_object_chunk_is_malformed() -> None:
    reader = ChatChunkReader("p")
    reader.frame("message", {"choices": [{"delta": {"content": "kept"}}]})
    with pytest.raises(MalformedResponseError) as caught:
        reader.receive("message", "[1, 2]")
    assert caught.value.partial is not None and caught.value.partial.text == "kept"
