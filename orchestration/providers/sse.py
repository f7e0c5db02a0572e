"""Incremental Server-Sent Events decoding, tolerant of any byte chunking.

Bytes may arrive split anywhere, including inside a UTF-8 sequence or between ``\\r`` and ``\\n``. Lines end
with LF, CRLF or CR (Gemini sends CRLF). Comment lines (``: keep-alive``) are skipped, as is a byte-order mark
at the start of the stream. An event is dispatched at a blank line; ``close`` also delivers a last event that
the server never terminated.

One event (its unfinished line and its data lines together) may hold at most ``MAX_EVENT_BYTES`` (16 MiB) of
UTF-8; past that the decoder raises ``EventTooLarge`` as soon as the limit is passed, so a server sending one
endless line cannot make Parley buffer it.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

_LINE_END = re.compile(r"\r\n|\r|\n")
MAX_EVENT_BYTES = 16 * 1024 * 1024  # one stream event (an SSE event, an NDJSON line, a streamed JSON element)


class EventTooLarge(Exception):
    """One event passed ``limit`` bytes before it ended; reading must stop."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"a stream event passed {limit:,} bytes")
        self.limit = limit


def utf8_size(text: str) -> int:
    """Bytes of ``text`` in UTF-8; the decoders count what they hold with it, piece by piece."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched event; ``event`` is "message" when the server named none."""

    event: str
    data: str
    id: str | None = None


class SSEDecoder:
    """Feed it bytes as they arrive; it returns the events completed so far."""

    def __init__(self, max_event_bytes: int = MAX_EVENT_BYTES) -> None:
        self._text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer: list[str] = []  # the unfinished line, in pieces: joined once when it ends, never re-copied
        self._held = 0  # bytes of the event in progress: its data lines and the unfinished line
        self._limit = max_event_bytes
        self._pending_cr = False
        self._event = ""
        self._data: list[str] = []
        self._id: str | None = None
        self._at_start = True

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        return self._feed_text(self._text.decode(chunk))

    def close(self) -> list[SSEEvent]:
        """Flush at end of stream; a final event without its blank line is still delivered."""
        events = self._feed_text(self._text.decode(b"", final=True))
        if self._buffer:
            events.extend(self._line("".join(self._buffer)))
            self._buffer = []
        events.extend(self._dispatch())
        return events

    def _feed_text(self, text: str) -> list[SSEEvent]:
        if self._at_start and text:
            self._at_start = False
            text = text.removeprefix("\ufeff")
        if not text:
            return []
        if self._pending_cr and text.startswith("\n"):
            text = text[1:]  # the LF of a CRLF split across chunks
        self._pending_cr = False
        events: list[SSEEvent] = []
        start = 0
        for match in _LINE_END.finditer(text):
            piece = text[start:match.start()]
            self._hold(piece)
            line = "".join(self._buffer) + piece if self._buffer else piece
            self._buffer = []
            events.extend(self._line(line))
            start = match.end()
            if match.group() == "\r" and start == len(text):
                self._pending_cr = True
        rest = text[start:]
        self._hold(rest)
        if rest:
            self._buffer.append(rest)  # only the unfinished line is kept, so no text is scanned twice
        return events

    def _hold(self, piece: str) -> None:
        self._held += utf8_size(piece)
        if self._held > self._limit:
            raise EventTooLarge(self._limit)

    def _line(self, line: str) -> list[SSEEvent]:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
            self._held -= utf8_size(line)  # a comment is not kept
            return []
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            self._id = value
        return []

    def _dispatch(self) -> list[SSEEvent]:
        if not self._data and not self._event:
            self._held = 0
            return []
        event = SSEEvent(event=self._event or "message", data="\n".join(self._data), id=self._id)
        self._event = ""
        self._data = []
        self._held = 0
        return [event]
