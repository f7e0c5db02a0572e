"""What went over the wire for one model call, kept for the run inspector's raw request and response.

The loop opens a capture around each model call (``capture_wire``); the provider transport, which every adapter
sends through, records into the capture of the current context: the request body as sent (attached files shown
as type, size and hash, orchestration/binary_summary.py), the response status
and the first bytes of the response body as received. Adapters need no code for it. Both sides are cut to
``WIRE_CAPTURE_CHARS`` so a long conversation does not store its whole history with every call. Credentials are
redacted before anything leaves this module, and before the cut: the cut never ends inside a known secret
(``cut_redacted``), so a key straddling the limit leaves no prefix behind.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from orchestration.binary_summary import summarize_binary
from orchestration.redaction import cut_redacted, redact_body

WIRE_CAPTURE_CHARS = 32_000  # of the request body, and bytes of the response body, kept per model call

_current: ContextVar[WireCapture | None] = ContextVar("parley_wire_capture", default=None)


@dataclass
class WireCapture:
    method: str | None = None
    path: str | None = None
    attempts: int = 0
    request_body: str = ""
    request_omitted_chars: int = 0
    status: int | None = None
    content_type: str | None = None
    response_omitted_bytes: int = 0
    secrets: list[str] = field(default_factory=list)
    _response: bytearray = field(default_factory=bytearray)

    def sent(self, method: str, path: str, payload: dict[str, Any] | None, secrets: list[str]) -> None:
        """A request went out; a retry replaces what the previous attempt recorded."""
        text = "" if payload is None else json.dumps(redact_body(summarize_binary(payload)), ensure_ascii=False)
        self.method, self.path, self.secrets = method, path, secrets
        self.attempts += 1
        kept = cut_redacted(text, WIRE_CAPTURE_CHARS, secrets)
        self.request_body = kept.text
        self.request_omitted_chars = len(kept.rest)
        self.status = self.content_type = None
        self._response.clear()
        self.response_omitted_bytes = 0

    def received(self, status: int, content_type: str | None) -> None:
        self.status, self.content_type = status, content_type

    def body(self, chunk: bytes) -> None:
        room = WIRE_CAPTURE_CHARS - len(self._response)
        self._response += chunk[:max(room, 0)]
        self.response_omitted_bytes += max(len(chunk) - max(room, 0), 0)

    def fields(self) -> dict[str, Any]:
        """The capture as the fields of a ``model_exchange`` event, with credentials redacted."""
        response = cut_redacted(self._response.decode("utf-8", "replace"), WIRE_CAPTURE_CHARS, self.secrets,
                                continues=self.response_omitted_bytes > 0)
        return {
            "method": self.method or "", "path": self.path or "", "attempts": self.attempts,
            "request_body": self.request_body,
            "request_omitted_chars": self.request_omitted_chars,
            "status": self.status, "content_type": self.content_type,
            "response_body": response.text,
            "response_omitted_bytes": self.response_omitted_bytes + len(response.rest.encode("utf-8")),
        }


def current_capture() -> WireCapture | None:
    """The capture of the model call running in this context, if the caller asked for one."""
    return _current.get()


@contextmanager
def capture_wire() -> Iterator[WireCapture]:
    capture = WireCapture()
    token = _current.set(capture)
    try:
        yield capture
    finally:
        _current.reset(token)
