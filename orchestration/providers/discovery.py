"""Model servers already running on this machine, found without blocking.

A first-time user without keys should see what is there: Ollama (11434), LM Studio (1234), llama.cpp's
server (8080) and vLLM (8000). Each port is probed concurrently on the loopback interface with a short
deadline; a server counts only when it answers its model-list endpoint with the expected JSON, so an
unrelated web app on 8080 is not mistaken for one. Ports are injectable so tests can use ephemeral ones.

A probe is one plain HTTP/1.1 GET over an asyncio connection (``Connection: close``; the body read by its
Content-Length, as chunks, or to the close), not an httpx client: discovery runs when a window with no provider
starts, and httpx with its SSL context would cost that idle window about 5 MB it otherwise never needs (issue 17).
Only loopback http:// is ever probed, so no TLS, proxies or redirects are involved.
"""

from __future__ import annotations

import asyncio
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


@dataclass(frozen=True)
class LocalServer:
    preset: str  # the preset to configure it with
    title: str
    base_url: str
    models: list[str] = field(default_factory=list)


async def discover_local_servers(ports: Mapping[str, int] | None = None, *, host: str = LOOPBACK_HOST,
                                 probe_seconds: float = PROBE_TIMEOUT) -> list[LocalServer]:
    """The servers that answered, in the order of ``ports``; never raises for a server that is absent."""
    ports = LOCAL_PORTS if ports is None else ports
    found = await asyncio.gather(*(_probe(preset, host, port, probe_seconds) for preset, port in ports.items()))
    return [server for server in found if server is not None]


class ProbeError(Exception):
    """The answer was not a complete HTTP response within the limits."""


async def _get(host: str, port: int, path: str) -> tuple[int, bytes]:
    """Status and body of ``GET path`` on ``host:port`` over plain HTTP/1.1."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\n"
                     "Connection: close\r\n\r\n".encode("ascii"))
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        parts = status_line.split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/") or not parts[1].isdigit():
            raise ProbeError(f"not an HTTP status line: {status_line[:80]!r}")
        headers = {name.strip().lower(): value.strip() for name, _, value in
                   (line.partition(":") for line in header_lines if line)}
        if "chunked" in headers.get("transfer-encoding", "").lower():
            body = await _read_chunks(reader)
        elif headers.get("content-length", "").isdigit():
            length = int(headers["content-length"])
            if length > MAX_LISTING_BYTES:
                raise ProbeError(f"a body of {length} bytes")
            body = await reader.readexactly(length)
        else:
            body = await _read_to_close(reader)
        return int(parts[1]), body
    finally:
        writer.close()


async def _read_to_close(reader: asyncio.StreamReader) -> bytes:
    body = b""
    while more := await reader.read(65536):
        body += more
        if len(body) > MAX_LISTING_BYTES:
            raise ProbeError("a body past the limit")
    return body


async def _read_chunks(reader: asyncio.StreamReader) -> bytes:
    body = b""
    while True:
        size_line = (await reader.readuntil(b"\r\n")).split(b";")[0].strip()
        try:
            size = int(size_line, 16)
        except ValueError:
            raise ProbeError("a malformed chunk size") from None
        if size == 0:
            return body
        if len(body) + size > MAX_LISTING_BYTES:
            raise ProbeError("a body past the limit")
        body += await reader.readexactly(size)
        await reader.readexactly(2)  # the CRLF after each chunk


async def _probe(preset_name: str, host: str, port: int, probe_seconds: float) -> LocalServer | None:
    preset = PRESETS[preset_name]
    base_url = f"http://{host}:{port}{urlsplit(preset.base_url).path}"
    native = preset.kind == "ollama"
    path = urlsplit(base_url).path.rstrip("/") + ("/api/tags" if native else "/models")
    try:
        status, raw = await asyncio.wait_for(_get(host, port, path), probe_seconds)
        body = loads_bounded(raw, what=base_url + path) if status == 200 else None
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ProbeError, TimeoutError,
            ValueError):
        return None
    items = body.get("models" if native else "data") if isinstance(body, dict) else None
    if not isinstance(items, list):
        return None
    key = "name" if native else "id"
    models = [str(item[key]) for item in items if isinstance(item, dict) and item.get(key)]
    return LocalServer(preset=preset_name, title=preset.title, base_url=base_url, models=models)
