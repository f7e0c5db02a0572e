"""The six wire formats side by side, for tests that hold every adapter to the same rule.

Each ``WireKind`` knows its preset, the path a chat request goes to, how a normal streamed answer looks, and how
one raw event frame is written in its framing (SSE for most, NDJSON for Ollama's native API). A test runs the
same hostile body through all six over loopback HTTP.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from orchestration.engine import ChatAdapter, ModelRequest
from orchestration.messages import UserMessage
from orchestration.providers import adapter_for
from orchestration.providers.presets import provider_from_preset
from tests.support.loopback import LoopbackServer, Response
from tests.support.openai_wire import stream_response
from tests.support.provider_fixtures import split_events
from tests.support.provider_wire import (
    anthropic_stream,
    cohere_stream,
    gemini_stream,
    ollama_stream,
    responses_stream,
)


def _sse(data: bytes) -> bytes:
    return b"data: " + data + b"\n\n"


def _ndjson(data: bytes) -> bytes:
    return data + b"\n"


@dataclass(frozen=True)
class WireKind:
    name: str
    preset: str
    base_path: str  # appended to the server's URL to make the base URL
    path: str  # where the chat request goes
    model: str
    answer: Callable[[str], Response]  # a complete streamed answer with this text
    frame: Callable[[bytes], bytes]  # one event whose data is these bytes, in the stream's framing
    content_type: str
    whole_type: str = "application/json"  # the content type of a non-streamed answer
    whole_path: str = ""  # where a non-streamed request goes, when not ``path``

    @property
    def plain_path(self) -> str:
        return self.whole_path or self.path

    def adapter(self, server: LoopbackServer, **overrides: Any) -> ChatAdapter:
        overrides.setdefault("max_attempts", 1)
        config = provider_from_preset(self.preset, base_url=server.url + self.base_path, api_key="test-key-not-real")
        return adapter_for(config.model_copy(update=overrides))

    def request(self, **fields: Any) -> ModelRequest:
        return ModelRequest(model=self.model, messages=[UserMessage(content="hi")], **fields)

    def answer_frames(self, text: str) -> list[bytes]:
        """The frames of ``answer(text)``, one piece per event (SSE) or line (NDJSON)."""
        body = b"".join(c if isinstance(c, bytes) else c.data for c in self.answer(text).chunks)
        if self.frame is _ndjson:
            return [line + b"\n" for line in body.split(b"\n") if line]
        return split_events(body)

    def stream_of(self, *frames: bytes) -> Response:
        """A streamed body made of these raw frames (already framed with ``frame``)."""
        return Response(headers={"Content-Type": self.content_type}, chunks=list(frames))


KINDS = [
    WireKind("openai", "openai", "/v1", "/v1/chat/completions", "m", lambda t: stream_response(t), _sse,
             "text/event-stream"),
    WireKind("openai-responses", "openai-responses", "/v1", "/v1/responses", "m",
             lambda t: responses_stream(text=t), _sse, "text/event-stream"),
    WireKind("anthropic", "anthropic", "/v1", "/v1/messages", "claude-test", lambda t: anthropic_stream(text=t),
             _sse, "text/event-stream"),
    WireKind("gemini", "gemini", "/v1beta", "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
             "gemini-2.5-flash", lambda t: gemini_stream(text=t), _sse, "text/event-stream",
             whole_path="/v1beta/models/gemini-2.5-flash:generateContent"),
    WireKind("ollama", "ollama-native", "", "/api/chat", "qwen3", lambda t: ollama_stream(text=t), _ndjson,
             "application/x-ndjson", whole_type="application/x-ndjson"),
    WireKind("cohere", "cohere", "", "/v2/chat", "command-a-03-2025", lambda t: cohere_stream(text=t), _sse,
             "text/event-stream"),
]

KIND_IDS = [k.name for k in KINDS]
