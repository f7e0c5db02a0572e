"""What every wire-format adapter shares: the transport, the read loop, partial answers and end markers.

An adapter is a ``WireReader`` subclass (turns one frame of its format into accumulator calls) plus an
``HTTPChatAdapter`` subclass (builds the request and picks the framing). The read loop here feeds bytes through
the framing into the reader, keeps what arrived on any error, and insists on the format's end marker: a stream
that stops without it is a ``StreamError`` carrying the partial answer, never a silently short answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable, Iterator
from typing import TYPE_CHECKING, Any

from orchestration.accumulate import ResponseAccumulator
from orchestration.bounded_json import JSONLimitError, loads_bounded
from orchestration.engine import ModelFinish, ModelRequest, ProviderEvent
from orchestration.errors import (
    MalformedResponseError,
    ProviderError,
    StreamError,
    answer_too_large,
    empty_response,
    event_too_large,
    stream_error_from_frame,
)
from orchestration.providers.config import Capabilities, ProviderConfig
from orchestration.providers.framing import WHOLE, BodyTooLarge, FrameDecoder, SSEFrames, WholeBody
from orchestration.providers.sse import EventTooLarge
from orchestration.providers.transport import Sleep, Transport, read_answer
from orchestration.redaction import cut_redacted
from orchestration.think_tags import InlineReasoning

if TYPE_CHECKING:  # httpx is imported when a client is first made (providers/transport.py)
    import httpx

UNFRAMED_BODY_KEPT = 64_000  # bytes kept of a body that yields no frames, to report what it was
QUOTED_FRAME_CHARS = 120  # characters of a frame that is not JSON quoted in the error (keys hidden)


class WireReader:
    """Turns the frames of one response into provider events through the shared accumulator."""

    end_marker = "its end marker"  # named in the error when a stream stops early

    def __init__(self, provider_name: str, *, think_tags: bool = False) -> None:
        self.provider_name = provider_name
        self.acc = ResponseAccumulator()
        self.inline = InlineReasoning(self.acc, enabled=think_tags)
        self.finish_reason: ModelFinish = "unknown"
        self.native_finish_reason: str | None = None
        self.ended = False  # the format's end marker arrived
        self.frames = 0
        self.secrets: list[str] = []  # hidden in what an error quotes of the body

    # --- to implement ------------------------------------------------------------------------------
    def frame(self, event: str, obj: Any) -> list[ProviderEvent]:
        """One parsed frame of a stream."""
        raise NotImplementedError

    def whole(self, obj: Any) -> list[ProviderEvent]:
        """A whole non-streamed answer. The default reads it as a single frame."""
        return self.frame("message", obj)

    # --- the body ----------------------------------------------------------------------------------
    def feed(self, decoder: FrameDecoder, chunk: bytes) -> Iterator[ProviderEvent]:
        """Bytes as they arrive, through the body's framing. A generator, so the events of the frames before
        a failing one still come out before the error."""
        try:
            frames = decoder.feed(chunk)
        except EventTooLarge as exc:
            raise self.too_large(exc) from None
        for event, data in frames:
            yield from self.receive(event, data)

    def close(self, decoder: FrameDecoder, head: bytes) -> Iterator[ProviderEvent]:
        """The body is over: the frames its end completes (``end`` comes next). ``head`` is the start of the
        body, looked at only when it gave no frames at all: a JSON error is raised as such, anything
        else as an empty response. A last frame cut off mid-JSON means the stream
        broke off, so it is reported as a cut-off stream, not as malformed."""
        try:
            frames = decoder.close()
        except EventTooLarge as exc:
            raise self.too_large(exc) from None
        for event, data in frames:
            yield from self.receive(event, data, last=True)
        if not self.frames:
            self.unframed(head)
            raise self.with_partial(empty_response(
                self.provider_name, cut_redacted(head.decode("utf-8", "replace"), UNFRAMED_BODY_KEPT,
                                                 self.secrets).text))

    def receive(self, event: str, data: str, *, last: bool = False) -> list[ProviderEvent]:
        """One raw frame: parse its JSON and hand it on. A ``[DONE]`` line goes to ``done_line``. A whole body
        that is not JSON is reported as a transport reports a non-JSON answer, quoting its start."""
        text = data.strip()
        if not text:
            return []
        if text == "[DONE]":
            return self.done_line()
        if event == WHOLE:
            try:
                obj = read_answer(self.provider_name, text, self.secrets)
            except ProviderError as error:
                raise self.with_partial(error) from None
            self.frames += 1
            return self.whole(obj)
        try:
            obj = loads_bounded(text, what=f"a stream event from {self.provider_name}")
        except JSONLimitError as exc:
            raise self.malformed(str(exc).rstrip(".")) from None
        except ValueError:
            if last and not self.ended:
                raise self.cut_off() from None
            quoted = cut_redacted(text, QUOTED_FRAME_CHARS, self.secrets).text
            raise self.malformed(f"a frame is not JSON ({quoted!r})") from None
        self.frames += 1
        return self.frame(event, obj)

    def done_line(self) -> list[ProviderEvent]:
        """An SSE ``[DONE]`` line. Ignored by default: the format's own end marker decides whether the answer
        is complete (OpenAI Chat Completions counts it as one)."""
        return []

    def text(self, text: str) -> list[ProviderEvent]:
        """Answer text, with ``<think>`` reasoning split out when the provider has think tags on."""
        return self.inline.text(text) if isinstance(text, str) else []

    def end(self) -> list[ProviderEvent]:
        """The body is over: the closing events, or an error when the end marker never came."""
        if not self.ended:
            raise self.cut_off()
        return self.finish()

    def cut_off(self) -> ProviderError:
        return self.with_partial(StreamError(
            f"The stream from {self.provider_name} ended before the answer was complete (no {self.end_marker}).",
            provider=self.provider_name))

    def finish(self) -> list[ProviderEvent]:
        return self.inline.flush() + self.acc.finish(self.finish_reason, self.native_finish_reason)

    def unframed(self, body: bytes) -> None:
        """A body that gave no frames at all: raise what it says when it is a JSON error (Gemini serves those
        with an SSE content type), else leave it to ``end``."""
        try:
            obj = loads_bounded(body, what=f"the answer from {self.provider_name}")
        except ValueError:  # not JSON, or past a limit: ``end`` reports the body
            return
        if isinstance(obj, list) and obj:
            obj = obj[0]
        if isinstance(obj, dict) and obj.get("error"):
            raise self.with_partial(stream_error_from_frame(self.provider_name, obj))

    def too_large(self, exc: EventTooLarge) -> ProviderError:
        """A frame (or a whole body) past the size limit while it arrived; what came before it is kept."""
        error = (answer_too_large(self.provider_name, exc.limit) if isinstance(exc, BodyTooLarge)
                 else event_too_large(self.provider_name, exc.limit))
        return self.with_partial(error)

    def error_frame(self, payload: Any) -> ProviderError:
        return self.with_partial(stream_error_from_frame(self.provider_name, payload))

    def malformed(self, what: str) -> ProviderError:
        return self.with_partial(MalformedResponseError(
            f"{self.provider_name} sent a malformed stream: {what}.", provider=self.provider_name))

    def attach_partial(self, error: ProviderError) -> None:
        """Keep what has arrived so far on ``error`` (the loop keeps it as a partial answer)."""
        self.inline.flush()
        error.partial = self.acc.snapshot()

    def with_partial(self, error: ProviderError) -> ProviderError:
        self.attach_partial(error)
        return error


class HTTPChatAdapter:
    """Transport, capabilities and the read loop of an adapter; subclasses build requests and readers."""

    def __init__(self, config: ProviderConfig, client: httpx.AsyncClient | None = None,
                 sleep: Sleep = asyncio.sleep) -> None:
        self.config = config
        self.transport = Transport(config, client, sleep=sleep)

    @property
    def provider_name(self) -> str:
        return self.config.display_name

    @property
    def capabilities(self) -> Capabilities:
        return self.config.capabilities

    async def aclose(self) -> None:
        await self.transport.aclose()

    def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        raise NotImplementedError

    def framing(self, content_type: str) -> FrameDecoder:
        """The decoder for a response body; SSE unless the server answered with a single JSON document."""
        if "json" in content_type and "event-stream" not in content_type:
            return WholeBody()
        return SSEFrames()

    async def read(self, path: str, payload: dict[str, Any], reader: WireReader, *,
                   framing: Callable[[str], FrameDecoder] | None = None) -> AsyncGenerator[ProviderEvent, None]:
        """POST ``payload`` and yield the reader's events, ending with ``ResponseComplete``. ``framing`` picks
        the body decoder from the content type (default: ``self.framing``)."""
        async with self.transport.stream("POST", path, payload) as response:
            decoder = (framing or self.framing)(response.headers.get("content-type", "").lower())
            reader.secrets = self.transport.secrets()
            head = bytearray()
            try:
                async for chunk in self.transport.iter_bytes(response):
                    if not reader.frames and len(head) < UNFRAMED_BODY_KEPT:
                        head += chunk[:UNFRAMED_BODY_KEPT - len(head)]
                    for provider_event in reader.feed(decoder, chunk):
                        yield provider_event
                for provider_event in reader.close(decoder, bytes(head)):
                    yield provider_event
                closing = reader.end()  # yielded once the response is closed
            except ProviderError as error:
                if error.partial is None:  # a broken or idle connection: keep what arrived
                    reader.attach_partial(error)
                raise
        for provider_event in closing:
            yield provider_event
