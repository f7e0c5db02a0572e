"""A loopback server that answers like the Hugging Face Hub's file endpoints, for the real ``huggingface_hub``
client (``HF_ENDPOINT`` pointed at it).

``HEAD /{repo}/resolve/{revision}/{file}`` answers as the Hub does for an LFS file: a 302 to the file's CDN
address with ``X-Repo-Commit``, ``X-Linked-Etag`` (the sha256) and ``X-Linked-Size``; unknown repositories and
files get the Hub's 404s with ``X-Error-Code``. ``GET /cdn/{sha256}`` on a second loopback server (the CDN)
serves the bytes and honours ``Range`` (206 with ``Content-Range``).

Scripted faults: ``break_after`` (the next transfers stop after that many bytes and the connection is closed)
``corrupt`` (the bytes served differ from the ones the sha256 was taken of) and ``pause_at`` (the next
transfer stalls after that many bytes, for a Ctrl+C in the middle). Bodies go out in two flushed
halves, so a client sees at least two pieces.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from tests.support.loopback import Chunk, LoopbackServer, Request, Response

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class HubFile:
    data: bytes
    sha256: str = ""

    def __post_init__(self) -> None:
        self.sha256 = self.sha256 or hashlib.sha256(self.data).hexdigest()


@dataclass
class FakeHub:
    files: dict[tuple[str, str], HubFile] = field(default_factory=dict)
    break_after: list[int] = field(default_factory=list)  # one entry per transfer to cut, in order
    corrupt: bool = False
    pause_at: int | None = None  # the next transfer waits ``pause`` seconds after this many bytes
    pause: float = 30.0
    cdn_status: int | None = None  # the CDN answers this status (an expired link: 403) instead of the bytes
    server: LoopbackServer | None = None
    cdn: LoopbackServer | None = None  # another origin, as the Hub's CDN is: the client must not follow there

    def add(self, repo: str, name: str, data: bytes) -> HubFile:
        self.files[(repo, name)] = HubFile(data)
        return self.files[(repo, name)]

    def __enter__(self) -> FakeHub:
        self.server = LoopbackServer(handler=self.answer).start()
        self.cdn = LoopbackServer(handler=self.answer).start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self.server is not None and self.cdn is not None
        self.server.stop()
        self.cdn.stop()

    @property
    def url(self) -> str:
        assert self.server is not None
        return self.server.url

    def transfers(self) -> list[Request]:
        assert self.cdn is not None
        return [r for r in self.cdn.requests if r.method == "GET" and r.path.startswith("/cdn/")]

    def answer(self, request: Request) -> Response | None:
        if request.method == "HEAD" and "/resolve/" in request.path:
            return self._head(request)
        if request.method == "GET" and request.path.startswith("/cdn/"):
            return self._get(request)
        return None

    def _head(self, request: Request) -> Response:
        repo, _, rest = request.path.lstrip("/").partition("/resolve/")
        name = rest.partition("/")[2]
        if not any(r == repo for r, _ in self.files):
            return Response(status=401, headers={"X-Error-Code": "RepoNotFound", "X-Error-Message":
                                                 "Repository not found"}, chunked=False)
        found = self.files.get((repo, name))
        if found is None:
            return Response(status=404, headers={"X-Error-Code": "EntryNotFound", "X-Error-Message":
                                                 "Entry not found", "X-Repo-Commit": COMMIT}, chunked=False)
        assert self.cdn is not None
        return Response(status=302, chunked=False, headers={
            "Location": f"{self.cdn.url}/cdn/{found.sha256}", "X-Repo-Commit": COMMIT, "ETag": f'"{found.sha256}"',
            "X-Linked-Etag": f'"{found.sha256}"', "X-Linked-Size": str(len(found.data))})

    def _get(self, request: Request) -> Response:
        if self.cdn_status is not None:
            return Response.text("Access denied", status=self.cdn_status)
        sha = request.path.rsplit("/", 1)[1]
        found = next((f for f in self.files.values() if f.sha256 == sha), None)
        if found is None:
            return Response.text("no such object", status=404)
        data = bytes(b ^ 0xFF for b in found.data) if self.corrupt else found.data
        start = 0
        spec = request.header("range")
        if spec and spec.startswith("bytes="):
            start = int(spec[6:].split("-")[0])
        body = data[start:]
        headers = {"Content-Type": "application/octet-stream", "Content-Length": str(len(body)),
                   "Accept-Ranges": "bytes"}
        status = 200
        if start:
            status = 206
            headers["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
        half = len(body) // 2
        if self.break_after:
            cut = min(self.break_after.pop(0), len(body))
            return Response(status=status, headers=headers, chunks=[body[:cut]], chunked=False,
                            close=True)  # a clean close short of Content-Length (an RST would drop what is queued)
        if self.pause_at is not None:
            cut, self.pause_at = min(self.pause_at, len(body)), None
            return Response(status=status, headers=headers, chunked=False,
                            chunks=[body[:cut], Chunk(body[cut:], self.pause)])
        return Response(status=status, headers=headers, chunks=[body[:half], body[half:]], chunked=False)
