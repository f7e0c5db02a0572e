"""A real HTTP/1.1 server on 127.0.0.1 for tests, serving scripted responses from a background thread.

Usage (sync or async tests alike; the server runs in its own threads)::

    with LoopbackServer() as server:                       # or the ``loopback`` pytest fixture
        server.add("POST", "/v1/chat/completions",
                   Response.sse([{"id": "x"}], done=True),      # first request
                   Response.json({"error": "no"}, status=429, headers={"Retry-After": "0"}))  # second
        url = server.url + "/v1"
        ...
        assert server.count == 2
        assert server.requests[0].json["model"] == "m"

Responses for a (method, path) are served from a queue in order; ``always()`` sets the one served once the
queue is empty; ``handler`` is a fallback ``callable(Request) -> Response | None`` for dynamic servers.
Anything unmatched gets a 404 JSON body. Every request is recorded (method, path, headers, body, parsed JSON).

A response is sent with ``Transfer-Encoding: chunked`` by default, each body chunk written and flushed
separately, optionally after a delay. ``hang`` keeps the connection open after the chunks without ever
finishing the body; ``hang_before_headers`` never answers at all; ``close_abruptly`` resets the connection
(TCP RST) after the chunks, leaving the body incomplete. Delays and hangs end as soon as the server stops.
"""

from __future__ import annotations

import contextlib
import json
import socket
import struct
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

__all__ = ["Chunk", "Handler", "LoopbackServer", "Request", "Response", "loopback"]


@dataclass(frozen=True)
class Chunk:
    """One piece of a response body, written and flushed on its own after ``delay`` seconds."""

    data: bytes
    delay: float = 0.0


@dataclass
class Response:
    """A scripted HTTP response."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[bytes | Chunk] = field(default_factory=list)
    chunk_delay: float = 0.0  # default delay before each chunk that has no delay of its own
    hang: bool = False  # after the chunks, keep the connection open and never finish the body
    hang_before_headers: bool = False  # read the request, then never answer
    close_abruptly: bool = False  # after the chunks, reset the connection without finishing the body
    chunked: bool = True  # Transfer-Encoding: chunked; False sends Content-Length (or reads-until-close)
    close: bool = False  # send "Connection: close" and close the connection afterwards

    # --- convenience constructors ------------------------------------------------------------------
    @classmethod
    def body(cls, data: bytes | str, content_type: str = "application/octet-stream", *, status: int = 200,
             headers: dict[str, str] | None = None, chunk_size: int | None = None,
             **options: Any) -> Response:
        """A body, optionally split into ``chunk_size`` pieces."""
        raw = data.encode() if isinstance(data, str) else data
        if chunk_size:
            chunks: list[bytes | Chunk] = [raw[i:i + chunk_size] for i in range(0, len(raw), chunk_size)]
        else:
            chunks = [raw] if raw else []
        return cls(status=status, headers={"Content-Type": content_type, **(headers or {})}, chunks=chunks,
                   **options)

    @classmethod
    def json(cls, obj: Any, *, status: int = 200, headers: dict[str, str] | None = None,
             **options: Any) -> Response:
        return cls.body(json.dumps(obj).encode(), "application/json", status=status, headers=headers,
                        **options)

    @classmethod
    def text(cls, text: str, *, status: int = 200, headers: dict[str, str] | None = None,
             **options: Any) -> Response:
        return cls.body(text.encode(), "text/plain; charset=utf-8", status=status, headers=headers, **options)

    @classmethod
    def sse(cls, events: Iterable[Any], *, done: bool = False, status: int = 200,
            headers: dict[str, str] | None = None, **options: Any) -> Response:
        """An event stream, one chunk per event. Items: a dict (sent as ``data: <json>``), a str (sent as
        ``data: <str>``), a ``(event_name, dict|str)`` pair, or raw bytes (sent unchanged)."""
        chunks: list[bytes | Chunk] = []
        for item in events:
            chunks.append(_sse_bytes(item))
        if done:
            chunks.append(b"data: [DONE]\n\n")
        return cls(status=status, headers={"Content-Type": "text/event-stream", **(headers or {})},
                   chunks=chunks, **options)


def _sse_bytes(item: Any) -> bytes:
    if isinstance(item, bytes):
        return item
    name = None
    if isinstance(item, tuple):
        name, item = item
    data = item if isinstance(item, str) else json.dumps(item)
    head = f"event: {name}\n" if name else ""
    return (head + "".join(f"data: {line}\n" for line in data.split("\n")) + "\n").encode()


@dataclass(frozen=True)
class Request:
    """A request the server received. ``headers`` keys are lower-case."""

    method: str
    target: str  # the raw request target, with any query string
    path: str  # without the query string
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    json: Any  # the parsed body, or None when it is not JSON

    def header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(name.lower(), default)


Handler = Callable[[Request], "Response | None"]


class LoopbackServer:
    """Scripted HTTP server on an ephemeral 127.0.0.1 port (or ``port``, for scripts whose output shows the URL).
    Use as a (sync or async) context manager."""

    def __init__(self, handler: Handler | None = None, *, port: int = 0) -> None:
        self.handler = handler
        self._wanted_port = port
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._queues: dict[tuple[str, str], deque[Response]] = {}
        self._always: dict[tuple[str, str], Response] = {}
        self._requests: list[Request] = []
        self._stop = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ---------------------------------------------------------------------------------
    def start(self) -> LoopbackServer:
        if self._httpd is not None:
            return self
        self._stop.clear()
        httpd = ThreadingHTTPServer(("127.0.0.1", self._wanted_port), _make_handler_class(self))
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01},
                                        name="loopback-http", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stop.set()
        httpd.shutdown()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> LoopbackServer:
        return self.start()

    async def __aexit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the loopback server is not running")
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` (no trailing slash)."""
        return f"http://127.0.0.1:{self.port}"

    # --- scripting ---------------------------------------------------------------------------------
    def add(self, method: str, path: str, *responses: Response) -> None:
        """Queue responses for (method, path); each request takes the next one. ``path`` may include a
        query string to match only that exact target."""
        with self._lock:
            self._queues.setdefault((method.upper(), path), deque()).extend(responses)

    def always(self, method: str, path: str, response: Response) -> None:
        """Serve ``response`` to every request for (method, path) once its queue is empty."""
        with self._lock:
            self._always[(method.upper(), path)] = response

    def reset(self) -> None:
        """Forget scripted responses and recorded requests."""
        with self._lock:
            self._queues.clear()
            self._always.clear()
            self._requests.clear()

    # --- recorded requests -------------------------------------------------------------------------
    @property
    def requests(self) -> list[Request]:
        with self._lock:
            return list(self._requests)

    @property
    def count(self) -> int:
        with self._lock:
            return len(self._requests)

    def requests_for(self, method: str, path: str) -> list[Request]:
        return [r for r in self.requests if r.method == method.upper() and path in (r.path, r.target)]

    def wait_for_requests(self, n: int, timeout: float = 5.0) -> bool:
        """Block until at least ``n`` requests have arrived; False on timeout."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while len(self._requests) < n:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
        return True

    # --- used by the handler thread ----------------------------------------------------------------
    def _record_and_pick(self, request: Request) -> Response:
        with self._changed:
            self._requests.append(request)
            self._changed.notify_all()
            for key in ((request.method, request.target), (request.method, request.path)):
                queue = self._queues.get(key)
                if queue:
                    return queue.popleft()
            for key in ((request.method, request.target), (request.method, request.path)):
                if key in self._always:
                    return self._always[key]
        if self.handler is not None:
            try:
                response = self.handler(request)
            except Exception:  # a broken test handler shows up as a 500 with its traceback
                return Response.text(traceback.format_exc(), status=500)
            if response is not None:
                return response
        return Response.json({"error": {"message": f"no scripted response for {request.method} "
                                                   f"{request.target}", "type": "not_found"}}, status=404)


def _make_handler_class(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            with server._lock:
                server._connections.add(self.connection)

        def finish(self) -> None:
            with server._lock:
                server._connections.discard(self.connection)
            with contextlib.suppress(OSError):
                super().finish()

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def handle_one_request(self) -> None:
            try:
                super().handle_one_request()
            except (ConnectionError, TimeoutError, OSError):
                self.close_connection = True

        def __getattr__(self, name: str) -> Any:
            # Every method (GET, POST, DELETE, ...) goes to the same place.
            if name.startswith("do_"):
                return self._serve
            raise AttributeError(name)

        def _read_body(self) -> bytes:
            if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
                parts = []
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        break
                    parts.append(self.rfile.read(size))
                    self.rfile.readline()
                return b"".join(parts)
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _serve(self) -> None:
            body = self._read_body()
            try:
                parsed = json.loads(body) if body else None
            except ValueError:
                parsed = None
            split = urlsplit(self.path)
            headers = {k.lower(): v for k, v in self.headers.items()}
            request = Request(method=self.command.upper(), target=self.path, path=split.path,
                              query=parse_qs(split.query), headers=headers, body=body, json=parsed)
            response = server._record_and_pick(request)
            self._send(response)

        def _send(self, response: Response) -> None:
            stop = server._stop
            if response.hang_before_headers:
                stop.wait()
                self.close_connection = True
                return
            chunks = [c if isinstance(c, Chunk) else Chunk(c, response.chunk_delay) for c in response.chunks]
            unfinished = response.hang or response.close_abruptly
            chunked = response.chunked
            self.send_response(response.status)
            names = {k.lower() for k in response.headers}
            for name, value in response.headers.items():
                self.send_header(name, value)
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            elif not unfinished and "content-length" not in names:
                self.send_header("Content-Length", str(sum(len(c.data) for c in chunks)))
            if response.close or (not chunked and unfinished):
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.flush()
            for chunk in chunks:
                if chunk.delay and stop.wait(chunk.delay):
                    self.close_connection = True
                    return
                if not chunk.data:
                    continue
                if chunked:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk.data), chunk.data))
                else:
                    self.wfile.write(chunk.data)
                self.wfile.flush()
            if response.close_abruptly:
                with contextlib.suppress(OSError):
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                return
            if response.hang:
                stop.wait()
                self.close_connection = True
                return
            if chunked:
                self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()

    return _Handler


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    """A running ``LoopbackServer``, stopped after the test."""
    with LoopbackServer() as server:
        yield server
