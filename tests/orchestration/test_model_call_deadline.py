"""The overall deadline of one model call: a server trickling bytes slowly enough never to go idle is stopped
after ``LoopLimits.model_call_timeout`` with a clear error, the partial answer kept (real HTTP on loopback)."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import ValidationError

from orchestration.events import RunEvent
from orchestration.limits import LoopLimits
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import AssistantMessage, UserMessage
from orchestration.providers.config import ProviderConfig
from orchestration.providers.openai_chat import OpenAIChatAdapter
from tests.support.loopback import Chunk, LoopbackServer, Response
from tests.support.openai_wire import stream_chunks
from tools.registry import ToolRegistry


def trickle(first: bytes, rest: bytes, every: float = 0.2) -> Response:
    """``first`` at once, then ``rest`` one byte every ``every`` seconds (never idle, never done)."""
    return Response(headers={"Content-Type": "text/event-stream"},
                    chunks=[first, *[Chunk(bytes([b]), delay=every) for b in rest]])


def sse(obj: object) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def test_the_default_is_600_s_and_the_limit_a_day() -> None:
    assert LoopLimits().model_call_timeout == 600
    assert LoopLimits(model_call_timeout=86_400).model_call_timeout == 86_400
    with pytest.raises(ValidationError):
        LoopLimits(model_call_timeout=86_401)
    with pytest.raises(ValidationError):
        LoopLimits(model_call_timeout=0)


def test_a_trickling_stream_is_stopped_at_the_deadline_with_the_partial_answer() -> None:
    chunks = stream_chunks("Hello there, this is slow", piece=12)
    first = sse(chunks[0]) + sse(chunks[1])  # the role, then "Hello there,"
    rest = b"".join(sse(c) for c in chunks[2:]) + b"data: [DONE]\n\n"
    events: list[RunEvent] = []
    with LoopbackServer() as server:
        server.add("POST", "/v1/chat/completions", trickle(first, rest))
        adapter = OpenAIChatAdapter(ProviderConfig(id="p", base_url=server.url + "/v1", max_attempts=1,
                                                   idle_timeout=5))
        loop = RunLoop(adapter, ToolRegistry([]), events.append, limits=LoopLimits(model_call_timeout=1))
        result = asyncio.run(loop.run(RunRequest(model="m", messages=[UserMessage(content="hi")])))
    (error,) = [e for e in events if e.type == "error"]
    assert error.code == "model_call_timeout"
    assert error.message.startswith("The model call took longer than 1 s (limit limits.model_call_timeout)")
    assert result.finish_reason == "error" and events[-1].type == "done"
    (partial,) = result.new_messages
    # stopped at the deadline: the next piece (" this is slo", ~100 bytes at 5 bytes a second) never arrived
    assert isinstance(partial, AssistantMessage) and partial.text == "Hello there,"
    assert partial.text == "".join(e.content for e in events if e.type == "content")
