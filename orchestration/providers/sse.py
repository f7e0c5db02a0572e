"""Incremental Server-Sent Events decoding, tolerant of any byte chunking.

Bytes may arrive split anywhere, including inside a UTF-8 sequence or between ``\\r`` and ``\\n``. Lines end
with LF, CRLF or CR (Gemini sends CRLF). Comment lines (``: keep-alive``) are skipped.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass


@dataclass(frozen=True)
class SSEEvent:
    event: str
    data: str
    id: str | None = None


class SSEDecoder:
    def __init__(self) -> None:
        self._text = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._buffer = ""
        self._pending_cr = False
        self._event = ""
        self._data: list[str] = []
        self._id: str | None = None

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        return self._feed_text(self._text.decode(chunk))

    def close(self) -> list[SSEEvent]:
        """Flush at end of stream; a final event without its blank line is still delivered."""
        events = self._feed_text(self._text.decode(b"", final=True))
        if self._buffer:
            events.extend(self._line(self._buffer))
            self._buffer = ""
        events.extend(self._dispatch())
        return events

    def _feed_text(self, text: str) -> list[SSEEvent]:
        if not text:
            return []
        if self._pending_cr and text.startswith("\n"):
            text = text[1:]
        self._pending_cr = False
        self._buffer += text
        events: list[SSEEvent] = []
        start = 0
        buf = self._buffer
        n = len(buf)
        i = 0
        while i < n:
            ch = buf[i]
            if ch == "\n" or ch == "\r":
                events.extend(self._line(buf[start:i]))
                if ch == "\r":
                    if i + 1 < n and buf[i + 1] == "\n":
                        i += 1
                    elif i + 1 == n:
                        self._pending_cr = True
                start = i + 1
            i += 1
        self._buffer = buf[start:]
        return events

    def _line(self, line: str) -> list[SSEEvent]:
        if line == "":
            return self._dispatch()
        if line.startswith(":"):
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
            return []
        event = SSEEvent(event=self._event or "message", data="\n".join(self._data), id=self._id)
        self._event = ""
        self._data = []
        return [event]
