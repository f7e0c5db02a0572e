"""Self-tests for the loopback HTTP server used by provider and transport tests."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.support.loopback import Chunk, LoopbackServer, Response


def test_queue_order_recording_and_fallback(loopback: LoopbackServer) -> None:
    loopback.add("POST", "/v1/x", Response.json({"n": 1}), Response.json({"n": 2}, status=429))
    loopback.handler = lambda req: Response.text(f"dyn {req.path}") if req.path.startswith("/dyn") else None
    with httpx.Client(base_url=loopback.url) as client:
        first = client.post("/v1/x", json={"a": 1}, headers={"X-Test": "yes"})
        second = client.post("/v1/x?alt=sse", json={"a": 2})
        third = client.post("/v1/x")
        dyn = client.get("/dyn/thing")
    assert (first.status_code, first.json()) == (200, {"n": 1})
    assert (second.status_code, second.json()) == (429, {"n": 2})
    assert third.status_code == 404 and "no scripted response" in third.text
    assert dyn.text == "dyn /dyn/thing"
    assert loopback.count == 4
    reqs = loopback.requests
    assert reqs[0].json == {"a": 1} and reqs[0].header("x-test") == "yes"
    assert reqs[1].target == "/v1/x?alt=sse" and reqs[1].query == {"alt": ["sse"]} and reqs[1].path == "/v1/x"
    assert len(loopback.requests_for("POST", "/v1/x")) == 3


def test_always_serves_after_the_queue() -> None:
    with LoopbackServer() as server:
        server.add("GET", "/a", Response.text("first"))
        server.always("GET", "/a", Response.text("again"))
        with httpx.Client(base_url=server.url) as client:
            assert [client.get("/a").text for _ in range(3)] == ["first", "again", "again"]


async def test_chunks_arrive_separately_in_async_code(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/s", Response(chunks=[b"one", Chunk(b"two", delay=0.05), b"three"],
                                       headers={"Content-Type": "text/plain"}))
    pieces = []
    async with httpx.AsyncClient() as client, client.stream("GET", loopback.url + "/s") as resp:
        assert resp.headers["transfer-encoding"] == "chunked"
        async for piece in resp.aiter_raw():
            pieces.append(piece)
    assert b"".join(pieces) == b"onetwothree"
    assert pieces[0] == b"one"


def test_hang_times_out_and_stop_releases_it() -> None:
    server = LoopbackServer().start()
    server.add("GET", "/h", Response(chunks=[b"partial"], hang=True))
    with httpx.Client(timeout=httpx.Timeout(5.0, read=0.2)) as client, client.stream(
            "GET", server.url + "/h") as resp, pytest.raises(httpx.ReadTimeout):
        for _ in resp.iter_raw():
            pass
    started = time.monotonic()
    server.stop()
    assert time.monotonic() - started < 2


def test_hang_before_headers(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/h", Response(hang_before_headers=True))
    with httpx.Client(timeout=httpx.Timeout(5.0, read=0.2)) as client, pytest.raises(httpx.ReadTimeout):
        client.get(loopback.url + "/h")
    assert loopback.wait_for_requests(1, timeout=0.1)


def test_close_abruptly_breaks_the_body(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/c", Response(chunks=[b"abc"], close_abruptly=True))
    with httpx.Client() as client:
        with pytest.raises(httpx.RemoteProtocolError), client.stream("GET", loopback.url + "/c") as resp:
            resp.read()
        # a fresh connection still works afterwards
        loopback.add("GET", "/ok", Response.text("fine", chunked=False))
        assert client.get(loopback.url + "/ok").text == "fine"
        assert loopback.requests[-1].path == "/ok"


def test_broken_handler_answers_500(loopback: LoopbackServer) -> None:
    def boom(_req):
        raise RuntimeError("handler bug")

    loopback.handler = boom
    resp = httpx.get(loopback.url + "/x")
    assert resp.status_code == 500 and "handler bug" in resp.text
