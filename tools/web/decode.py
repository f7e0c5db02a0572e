"""Content-Encoding decoding that stops at a size limit instead of inflating whatever a server sends.

A few kilobytes of gzip can expand to gigabytes. httpx decodes a whole received chunk at once, so ``web_fetch``
reads the raw bytes and decodes them here, asking zlib for no more than the bytes still allowed. Output past the
limit is dropped and ``exceeded`` is set, so the caller can keep the beginning and say the rest is missing.
Only gzip and deflate are advertised (``ACCEPT_ENCODING``), so a server has no reason to send anything else;
any other encoding is refused by name.
"""

from __future__ import annotations

import zlib
from typing import Any

ACCEPT_ENCODING = "gzip, deflate"


class UnsupportedEncoding(Exception):
    """A Content-Encoding this decoder does not read."""


class CorruptContent(Exception):
    """The compressed bytes could not be decoded."""


class BoundedDecoder:
    """Feeds raw body chunks and returns decoded bytes, never more than ``limit`` in total."""

    def __init__(self, content_encoding: str | None, limit: int) -> None:
        encodings = [e.strip().lower() for e in (content_encoding or "").split(",") if e.strip()]
        encodings = [e for e in encodings if e != "identity"]
        if len(encodings) > 1:
            raise UnsupportedEncoding(", ".join(encodings))
        self.encoding = encodings[0] if encodings else "identity"
        if self.encoding not in ("identity", "gzip", "x-gzip", "deflate"):
            raise UnsupportedEncoding(self.encoding)
        # gzip has one framing; deflate may be zlib-wrapped or raw, decided by its first bytes
        self._inflater: Any = zlib.decompressobj(16 + zlib.MAX_WBITS) if "gzip" in self.encoding else None
        self._head = b""  # deflate bytes held back until the header can be recognized
        self.limit = limit
        self.total = 0
        self.exceeded = False

    def _keep(self, data: bytes) -> bytes:
        room = self.limit - self.total
        if len(data) > room:
            self.exceeded = True
            data = data[:room]
        self.total += len(data)
        return data

    def _inflate(self, data: bytes) -> bytes:
        if self._inflater is None:
            data = self._head + data
            if len(data) < 2:  # the zlib header is two bytes; wait for the second
                self._head = data
                return b""
            wrapped = (data[0] & 0x0F) == 8 and int.from_bytes(data[:2], "big") % 31 == 0
            self._inflater = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        if self._inflater.eof:
            return b""  # anything after the end of the compressed stream is ignored
        try:
            # One byte more than there is room for tells "exactly full" from "too much".
            out = self._inflater.decompress(data, self.limit - self.total + 1)
        except zlib.error as exc:
            raise CorruptContent(str(exc)) from None
        return self._keep(out)

    def feed(self, data: bytes) -> bytes:
        """Decoded bytes for the next raw chunk; empty once the limit is reached."""
        if not data or self.exceeded:
            return b""
        if self.encoding == "identity":
            return self._keep(data)
        return self._inflate(data)

    def flush(self) -> bytes:
        if self._inflater is None or self.exceeded:
            return b""
        try:
            return self._keep(self._inflater.flush())
        except zlib.error as exc:
            raise CorruptContent(str(exc)) from None
