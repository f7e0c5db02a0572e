"""How a response body is cut into frames: SSE events, NDJSON lines, streamed JSON-array elements, or one body.

Every decoder takes bytes as they arrive, split anywhere (inside a UTF-8 sequence, a line end, a JSON string),
and returns ``(event_name, text)`` frames as soon as they are complete. ``close`` delivers what the end of the
body completes. The adapter's reader parses the text; a decoder never interprets it.

Every decoder holds at most ``MAX_EVENT_BYTES`` (16 MiB) of one frame: past that it raises ``EventTooLarge``
while the frame is still arriving, so reading stops instead of buffering an endless line or body. For a whole
body that is ``BodyTooLarge``, so the error can name an answer, not a stream event.
"""

from __future__ import annotations

import codecs
from typing import Protocol

from orchestration.providers.sse import MAX_EVENT_BYTES, EventTooLarge, SSEDecoder, utf8_size

Frame = tuple[str, str]
WHOLE = "whole"  # the event name of a frame that is the entire (non-streamed) body


class BodyTooLarge(EventTooLarge):
    """A whole (non-streamed) body passed the limit while it arrived."""


class FrameDecoder(Protocol):
    def feed(self, chunk: bytes) -> list[Frame]: ...

    def close(self) -> list[Frame]: ...


class SSEFrames:
    """Server-Sent Events: one frame per event, named by its ``event:`` line ("message" when unnamed)."""

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._decoder = SSEDecoder(max_event_bytes)

    def feed(self, chunk: bytes) -> list[Frame]:
        return [(e.event, e.data) for e in self._decoder.feed(chunk)]

    def close(self) -> list[Frame]:
        return [(e.event, e.data) for e in self._decoder.close()]


class NDJSONFrames:
    """Newline-delimited JSON (Ollama): one frame per non-blank line; a last line without its newline counts."""

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending: list[str] = []  # the unfinished line, in pieces (joined once it ends)
        self._held = 0
        self._limit = max_event_bytes

    def feed(self, chunk: bytes) -> list[Frame]:
        return self._lines(self._text.decode(chunk))

    def close(self) -> list[Frame]:
        frames = self._lines(self._text.decode(b"", final=True))
        rest, self._pending, self._held = "".join(self._pending), [], 0
        return frames + ([("message", rest.strip())] if rest.strip() else [])

    def _lines(self, text: str) -> list[Frame]:
        first, *complete = text.split("\n")
        self._held += utf8_size(first)
        if self._held > self._limit:
            raise EventTooLarge(self._limit)
        self._pending.append(first)
        if not complete:
            return []
        *middle, rest = complete
        lines = ["".join(self._pending), *middle]
        if any(utf8_size(line) > self._limit for line in middle):
            raise EventTooLarge(self._limit)
        self._pending, self._held = [], 0
        frames = [("message", line.strip()) for line in lines if line.strip()]
        return frames + self._lines(rest) if rest else frames


class JSONArrayFrames:
    """A JSON array streamed element by element (Gemini ``streamGenerateContent`` without ``alt=sse``):
    ``[{...}\\n,\\r\\n{...}\\n]``. Each top-level object is one frame; a bare object (no array) is one frame too.
    ``closed`` tells whether the closing bracket (or the end of a bare object) arrived; ``stray`` keeps the
    first text that is neither, so the reader can report a body that is not this format."""

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._element: list[str] = []
        self._held = 0  # bytes of the element in progress
        self._limit = max_event_bytes
        self._depth = 0
        self._in_string = False
        self._escaped = False
        self._in_array = False
        self.closed = False
        self.stray = ""

    def feed(self, chunk: bytes) -> list[Frame]:
        return self._scan(self._text.decode(chunk))

    def close(self) -> list[Frame]:
        return self._scan(self._text.decode(b"", final=True))

    def _scan(self, text: str) -> list[Frame]:
        frames: list[Frame] = []
        start = 0 if self._depth else -1  # where the element in progress begins in ``text``
        for i, ch in enumerate(text):
            if self._depth == 0:
                if ch == "{":
                    self._depth, start = 1, i
                elif ch == "[" and not self._in_array and not self.closed:
                    self._in_array = True
                elif ch == "]" and self._in_array:
                    self._in_array, self.closed = False, True
                elif not (ch.isspace() or (ch == "," and self._in_array)) and not self.stray:
                    self.stray = text[i:i + 200]
                continue
            if self._in_string:
                if self._escaped:
                    self._escaped = False
                elif ch == "\\":
                    self._escaped = True
                elif ch == '"':
                    self._in_string = False
            elif ch == '"':
                self._in_string = True
            elif ch in "{[":
                self._depth += 1
            elif ch in "}]":
                self._depth -= 1
                if self._depth == 0:
                    self._element.append(text[start:i + 1])
                    element = "".join(self._element)
                    if self._held + utf8_size(text[start:i + 1]) > self._limit:
                        raise EventTooLarge(self._limit)
                    frames.append(("message", element))
                    self._element, self._held = [], 0
                    start = -1
                    if not self._in_array:
                        self.closed = True
        if self._depth and start >= 0:
            self._held += utf8_size(text[start:])
            if self._held > self._limit:
                raise EventTooLarge(self._limit)
            self._element.append(text[start:])
        return frames


class WholeBody:
    """A body that is one JSON document (a non-streamed answer): one ``WHOLE`` frame at the end."""

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._chunks: list[bytes] = []
        self._held = 0
        self._limit = max_event_bytes

    def feed(self, chunk: bytes) -> list[Frame]:
        self._held += len(chunk)
        if self._held > self._limit:
            raise BodyTooLarge(self._limit)
        self._chunks.append(chunk)
        return []

    def close(self) -> list[Frame]:
        body = b"".join(self._chunks).decode("utf-8", "replace")
        return [(WHOLE, body)] if body.strip() else []
