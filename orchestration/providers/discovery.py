"""Model servers already running on this machine, found without blocking.

A first-time user without keys should see what is there: Ollama (11434), LM Studio (1234), llama.cpp's
server (8080) and vLLM (8000). Each port is probed concurrently on the loopback interface with a short
deadline; a server counts only when it answers its model-list endpoint with the expected JSON, so an
unrelated web app on 8080 is not mistaken for one. Ports are injectable so tests can use ephemeral ones.

A probe is one plain HTTP/1.1 GET over a blocking socket in its own thread (``Connection: close``; the body read
by its Content-Length, as chunks, or to the close), not an httpx client and not asyncio: discovery runs when a
window with no provider starts, and httpx with its SSL context (about 5 MB), or asyncio with the ssl module it
imports (about 8 MB), would cost that idle window memory it otherwise never needs (issue 17). Only loopback
http:// is ever probed, so no TLS, proxies or redirects are involved. ``find_local_servers`` blocks for at most
the probe deadline; ``discover_local_servers`` runs it off an asyncio loop's thread.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from orchestration.bounded_json import loads_bounded
from orchestration.providers.presets import PRESETS

LOOPBACK_HOST = "127.0.0.1"
PROBE_TIMEOUT = 0.5  # seconds for one probe, connection and answer together
LOCAL_PORTS: dict[str, int] = {"ollama-native": 11434, "lmstudio": 1234, "llamacpp": 8080, "vllm": 8000}
"""Preset name -> the port its server listens on by default."""
MAX_LISTING_BYTES = 4 * 1024 * 1024  # a longer model list is not read (the server does not count as found)
MAX_HEAD_BYTES = 64 * 1024  # a longer status line and headers: not a model server's answer
JOIN_MARGIN_S = 0.2  # a probe thread is waited for this long past its deadline (its socket times out by then)


@dataclass(frozen=True)
class LocalServer:
    preset: str  # the preset to configure it with
    title: str
    base_url: str
    models: list[str] = field(default_factory=list)


def find_local_servers(ports: Mapping[str, int] | None = None, *, host: str = LOOPBACK_HOST,
                       probe_seconds: float = PROBE_TIMEOUT) -> list[LocalServer]:
    """The servers that answered, in the order of ``ports``, all probed at once; blocks for at most about
    ``probe_seconds`` and never raises for a server that is absent."""
    ports = LOCAL_PORTS if ports is None else ports
    deadline = time.monotonic() + probe_seconds
    found: dict[str, LocalServer | None] = {}

    def probe(preset: str, port: int) -> None:
        found[preset] = _probe(preset, host, port, deadline)

    threads = [threading.Thread(target=probe, args=(preset, port), name=f"discovery:{port}", daemon=True)
               for preset, port in ports.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()) + JOIN_MARGIN_S)
    return [server for preset in ports if (server := found.get(preset)) is not None]


async def discover_local_servers(ports: Mapping[str, int] | None = None, *, host: str = LOOPBACK_HOST,
                                 probe_seconds: float = PROBE_TIMEOUT) -> list[LocalServer]:
    """``find_local_servers`` from a coroutine, off the event loop's thread."""
    import asyncio

    return await asyncio.to_thread(find_local_servers, ports, host=host, probe_seconds=probe_seconds)


class ProbeError(Exception):
    """The answer was not a complete HTTP response within the limits."""


class _Reader:
    """Reads one answer from a blocking socket; every read waits at most until the probe's deadline."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline
        self.buffer = b""
        self.closed = False

    def _more(self) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the probe's deadline passed")
        self.sock.settimeout(left)
        data = self.sock.recv(65536)
        if not data:
            self.closed = True
        self.buffer += data

    def until(self, separator: bytes, limit: int) -> bytes:
        """Up to and including ``separator``."""
        while (end := self.buffer.find(separator)) < 0:
            if len(self.buffer) > limit:
                raise ProbeError(f"no {separator!r} within {limit} bytes")
            if self.closed:
                raise ProbeError("the answer ended early")
            self._more()
        end += len(separator)
        data, self.buffer = self.buffer[:end], self.buffer[end:]
        return data

    def exactly(self, count: int) -> bytes:
        while len(self.buffer) < count:
            if self.closed:
                raise ProbeError("the answer ended early")
            self._more()
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def to_close(self, limit: int) -> bytes:
        while not self.closed:
            if len(self.buffer) > limit:
                raise ProbeError("a body past the limit")
            self._more()
        if len(self.buffer) > limit:
            raise ProbeError("a body past the limit")
        return self.buffer


def _get(host: str, port: int, path: str, deadline: float) -> tuple[int, bytes]:
    """Status and body of ``GET path`` on ``host:port`` over plain HTTP/1.1."""
    with socket.create_connection((host, port), timeout=max(0.001, deadline - time.monotonic())) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\n"
                     "Connection: close\r\n\r\n".encode("ascii"))
        reader = _Reader(sock, deadline)
        head = reader.until(b"\r\n\r\n", MAX_HEAD_BYTES)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            raise ProbeError(f"not an HTTP status line: {status_line[:80]!r}")
        headers = {name.strip().lower(): value.strip() for name, _, value in
                   (line.partition(":") for line in header_lines if line)}
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = _read_chunks(reader)
        elif headers.get("content-length", "").isdigit():
            length = int(headers["content-length"])
            if length > MAX_LISTING_BYTES:
                raise ProbeError(f"a body of {length} bytes")
            body = reader.exactly(length)
        else:
            body = reader.to_close(MAX_LISTING_BYTES)
        return int(parts[1]), body


def _read_chunks(reader: _Reader) -> bytes:
    body = b""
    while True:
        size_line = reader.until(b"\r\n", MAX_HEAD_BYTES).split(b";")[0].strip()
        try:
            size = int(size_line, 16)
        except ValueError:
            raise ProbeError("a malformed chunk size") from None
        if size == 0:
            return body
        if len(body) + size > MAX_LISTING_BYTES:
            raise ProbeError("a body past the limit")
        body += reader.exactly(size)
        reader.exactly(2)  # the CRLF after each chunk


def _probe(preset_name: str, host: str, port: int, deadline: float) -> LocalServer | None:
    preset = PRESETS[preset_name]
    base_url = f"http://{host}:{port}{urlsplit(preset.base_url).path}"
    native = preset.kind == "ollama"
    path = urlsplit(base_url).path.rstrip("/") + ("/api/tags" if native else "/models")
    try:
        status, raw = _get(host, port, path, deadline)
        body = loads_bounded(raw, what=base_url + path) if status == 200 else None
    except (OSError, ProbeError, ValueError):  # TimeoutError is an OSError
        return None
    items = body.get("models" if native else "data") if isinstance(body, dict) else None
    if not isinstance(items, list):
        return None
    key = "name" if native else "id"
    models = [str(item[key]) for item in items if isinstance(item, dict) and item.get(key)]
    return LocalServer(preset=preset_name, title=preset.title, base_url=base_url, models=models)
