"""Running a wire-format reader or adapter over recorded or scripted bodies, for the adapter tests.

``read_pieces`` feeds body pieces through a framing and a reader without HTTP (fast, for re-chunking with
hypothesis); ``collect`` runs an adapter over real loopback HTTP. Both return an ``Outcome``: the provider
events that came out and the error that ended the stream, if any.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from orchestration.engine import (
    ChatAdapter,
    ModelRequest,
    ProviderEvent,
    ReasoningChunk,
    ResponseComplete,
    TextChunk,
    ToolCallReady,
)
from orchestration.errors import ProviderError
from orchestration.messages import UserMessage
from orchestration.providers.base import WireReader
from orchestration.providers.framing import FrameDecoder, SSEFrames
from orchestration.providers.openai_chat import ChatChunkReader


@dataclass
class Outcome:
    events: list[ProviderEvent]
    error: ProviderError | None = None

    @property
    def complete(self) -> ResponseComplete:
        assert self.error is None, f"unexpected {self.error!r}"
        last = self.events[-1]
        assert isinstance(last, ResponseComplete)
        assert sum(isinstance(e, ResponseComplete) for e in self.events) == 1
        return last

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, TextChunk))

    @property
    def reasoning(self) -> str:
        return "".join(e.text for e in self.events if isinstance(e, ReasoningChunk))

    @property
    def announced(self) -> list[tuple[str, str, str]]:
        return [(e.call.id, e.call.name, e.call.arguments) for e in self.events if isinstance(e, ToolCallReady)]


def read_pieces(reader: WireReader, framing: FrameDecoder, pieces: list[bytes]) -> Outcome:
    """The body through ``framing`` and ``reader``, as the adapter's read loop does, without HTTP."""
    events: list[ProviderEvent] = []
    try:
        for piece in pieces:
            events.extend(reader.feed(framing, piece))
        events.extend(reader.close(framing, b"".join(pieces)))
        events += reader.end()
    except ProviderError as error:
        return Outcome(events, error)
    return Outcome(events)


def read_openai_chat(key: str, pieces: list[bytes]) -> Outcome:
    """An OpenAI Chat Completions body through SSE framing and ``ChatChunkReader``, for the recording ``key``
    (its directory names the provider), without HTTP."""
    return read_pieces(ChatChunkReader(key.split("/")[0]), SSEFrames(), pieces)


async def collect(adapter: ChatAdapter, request: ModelRequest | None = None,
                  on_event: Callable[[ProviderEvent], None] | None = None) -> Outcome:
    """Every event of one ``adapter.stream`` call (closing the adapter afterwards)."""
    request = request or ModelRequest(model="m", messages=[UserMessage(content="hi")])
    events: list[ProviderEvent] = []
    try:
        async for event in adapter.stream(request):
            events.append(event)
            if on_event is not None:
                on_event(event)
    except ProviderError as error:
        return Outcome(events, error)
    finally:
        await adapter.aclose()
    return Outcome(events)


class Sleeps:
    """An injectable ``sleep`` that records the back-off delays instead of waiting."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)
