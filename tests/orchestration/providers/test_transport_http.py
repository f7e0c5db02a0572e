"""Transport over real loopback HTTP: retries before the first byte, typed errors, idle and broken streams."""

from __future__ import annotations

import socket
from typing import Any

import httpx
import pytest

from orchestration.errors import (
    AuthenticationError,
    BadRequestError,
    ConnectionFailedError,
    MalformedResponseError,
    OverloadedError,
    RateLimitError,
    RequestTimeoutError,
    ServerError,
    StreamIdleError,
    error_from_response,
    parse_retry_after,
)
from orchestration.providers.config import ProviderConfig
from orchestration.providers.transport import Transport, backoff_delay
from tests.support.loopback import LoopbackServer, Response

ERROR_BODY = {"error": {"message": "slow down", "type": "rate_limit", "code": "rl"}}


class Sleeps:
    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


def make(server_url: str, sleeps: Sleeps | None = None, **overrides: Any) -> Transport:
    config = ProviderConfig(id="test", base_url=server_url + "/v1", **overrides)
    return Transport(config, sleep=sleeps or Sleeps())


async def read_all(transport: Transport, path: str = "chat/completions") -> bytes:
    async with transport.stream("POST", path, {"model": "m"}) as response:
        return b"".join([chunk async for chunk in transport.iter_bytes(response)])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(("status", "error_type"), [(429, RateLimitError), (503, ServerError),
                                                    (529, OverloadedError)])
async def test_retries_honour_retry_after(loopback: LoopbackServer, status: int, error_type: type) -> None:
    loopback.add("POST", "/v1/chat/completions",
                 Response.json(ERROR_BODY, status=status, headers={"Retry-After": "2"}),
                 Response.json(ERROR_BODY, status=status, headers={"Retry-After": "0.5"}),
                 Response.text("ok"))
    sleeps = Sleeps()
    transport = make(loopback.url, sleeps)
    assert await read_all(transport) == b"ok"
    await transport.aclose()
    assert sleeps.calls == [2.0, 0.5]
    assert loopback.count == 3
    assert all(r.json == {"model": "m"} for r in loopback.requests)  # the same request each time
    assert error_type("x").retryable


async def test_gives_up_after_max_attempts_with_the_last_error(loopback: LoopbackServer) -> None:
    loopback.always("POST", "/v1/chat/completions", Response.json(ERROR_BODY, status=503))
    sleeps = Sleeps()
    transport = make(loopback.url, sleeps, max_attempts=4)
    with pytest.raises(ServerError) as caught:
        await read_all(transport)
    await transport.aclose()
    assert loopback.count == 4
    assert len(sleeps.calls) == 3
    # without Retry-After: 0.5 s doubling, with +-20 % jitter
    for attempt, delay in enumerate(sleeps.calls, start=1):
        assert 0.5 * 2 ** (attempt - 1) * 0.8 <= delay <= 0.5 * 2 ** (attempt - 1) * 1.2
    error = caught.value
    assert (error.status, error.provider_code) == (503, "rl")
    assert "slow down" in error.message


async def test_retry_after_beyond_the_cap_is_not_waited_for(loopback: LoopbackServer) -> None:
    loopback.always("POST", "/v1/chat/completions",
                    Response.json(ERROR_BODY, status=429, headers={"Retry-After": "3600"}))
    sleeps = Sleeps()
    transport = make(loopback.url, sleeps, retry_cap=20)
    with pytest.raises(RateLimitError) as caught:
        await read_all(transport)
    await transport.aclose()
    assert caught.value.retry_after == 3600
    assert loopback.count == 1 and sleeps.calls == []


@pytest.mark.parametrize(("status", "error_type"), [(400, BadRequestError), (401, AuthenticationError),
                                                    (422, BadRequestError)])
async def test_client_errors_are_not_retried(loopback: LoopbackServer, status: int, error_type: type) -> None:
    body = {"error": {"message": "bad thing", "code": "invalid"}}
    loopback.always("POST", "/v1/chat/completions", Response.json(body, status=status))
    sleeps = Sleeps()
    transport = make(loopback.url, sleeps)
    with pytest.raises(error_type) as caught:
        await read_all(transport)
    await transport.aclose()
    assert loopback.count == 1 and sleeps.calls == []
    error = caught.value
    assert error.status == status
    assert "bad thing" in error.message and "test" in error.message
    assert error.body is not None and '"bad thing"' in error.body


async def test_headers_and_auth_are_sent(loopback: LoopbackServer) -> None:
    loopback.add("POST", "/v1/chat/completions", Response.text("ok"))
    config = ProviderConfig(id="t", base_url=loopback.url + "/v1/", api_key="sk-secret",
                            headers={"X-Title": "Parley"})
    transport = Transport(config)
    assert await read_all(transport) == b"ok"
    await transport.aclose()
    [request] = loopback.requests
    assert request.path == "/v1/chat/completions"
    assert request.header("authorization") == "Bearer sk-secret"
    assert request.header("x-title") == "Parley"
    assert request.header("content-type") == "application/json"


async def test_x_api_key_auth_style(loopback: LoopbackServer) -> None:
    loopback.add("POST", "/v1/messages", Response.text("ok"))
    config = ProviderConfig(id="t", base_url=loopback.url + "/v1", api_key="k", auth="x-api-key")
    transport = Transport(config)
    await read_all(transport, "messages")
    await transport.aclose()
    assert loopback.requests[0].header("x-api-key") == "k"
    assert loopback.requests[0].header("authorization") is None


async def test_connection_refused_is_connection_failed_and_retried() -> None:
    sleeps = Sleeps()
    transport = make(f"http://127.0.0.1:{free_port()}", sleeps, max_attempts=2)
    with pytest.raises(ConnectionFailedError) as caught:
        await read_all(transport)
    await transport.aclose()
    assert len(sleeps.calls) == 1
    assert "Could not reach test" in caught.value.message


@pytest.mark.parametrize("base_url", ["localhost:8080/v1", "ftp://host/v1", "http://[::1/v1"])
async def test_unusable_base_url_fails_at_once(base_url: str) -> None:
    sleeps = Sleeps()
    transport = Transport(ProviderConfig(id="test", base_url=base_url), sleep=sleeps)
    with pytest.raises(ConnectionFailedError) as caught:
        await read_all(transport)
    await transport.aclose()
    assert sleeps.calls == [] and not caught.value.retryable
    assert "base URL" in caught.value.message


async def test_no_answer_before_headers_is_a_request_timeout(loopback: LoopbackServer) -> None:
    loopback.always("POST", "/v1/chat/completions", Response(hang_before_headers=True))
    transport = make(loopback.url, idle_timeout=0.2, max_attempts=1)
    with pytest.raises(RequestTimeoutError) as caught:
        await read_all(transport)
    await transport.aclose()
    assert "0.2 s" in caught.value.message


async def test_idle_stream_is_stream_idle_error_and_not_retried(loopback: LoopbackServer) -> None:
    loopback.always("POST", "/v1/chat/completions",
                    Response(headers={"Content-Type": "text/event-stream"}, chunks=[b"data: {}\n\n"],
                             hang=True))
    sleeps = Sleeps()
    transport = make(loopback.url, sleeps, idle_timeout=0.2)
    received: list[bytes] = []
    with pytest.raises(StreamIdleError) as caught:
        async with transport.stream("POST", "chat/completions", {}) as response:
            async for chunk in transport.iter_bytes(response):
                received.append(chunk)
    await transport.aclose()
    assert b"".join(received) == b"data: {}\n\n"
    assert loopback.count == 1 and sleeps.calls == []  # output had started: never re-sent
    assert "0.2 s" in caught.value.message


async def test_connection_reset_mid_body_is_connection_failed(loopback: LoopbackServer) -> None:
    loopback.always("POST", "/v1/chat/completions",
                    Response(headers={"Content-Type": "text/event-stream"}, chunks=[b"data: 1\n\n"],
                             close_abruptly=True))
    transport = make(loopback.url)
    with pytest.raises(ConnectionFailedError) as caught:
        await read_all(transport)
    await transport.aclose()
    assert loopback.count == 1
    assert "broke during the answer" in caught.value.message


async def test_request_json(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/v1/models", Response.json({"data": [{"id": "m1"}]}, chunk_size=5))
    loopback.add("GET", "/v1/models", Response.text("<html>oops</html>"))
    transport = make(loopback.url)
    assert await transport.request_json("GET", "models") == {"data": [{"id": "m1"}]}
    with pytest.raises(MalformedResponseError) as caught:
        await transport.request_json("GET", "models")
    await transport.aclose()
    assert caught.value.body == "<html>oops</html>"


def test_backoff_delay() -> None:
    assert backoff_delay(1, 3.0, cap=20) == 3.0
    assert backoff_delay(1, 30.0, cap=20) == 20
    assert 0.4 <= backoff_delay(1, None, cap=20) <= 0.6
    assert all(backoff_delay(10, None, cap=5) <= 5 for _ in range(50))  # jitter stays under the cap


def test_parse_retry_after() -> None:
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(" 1.5 ") == 1.5
    assert parse_retry_after(None) is None
    assert parse_retry_after("soon") is None
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # in the past
    assert 0 < parse_retry_after("Fri, 01 Jan 2100 00:00:00 GMT") < 10**10  # type: ignore[operator]


@pytest.mark.parametrize(("status", "body", "error_type", "detail"), [
    (400, '{"error": {"message": "m1", "code": "c"}}', BadRequestError, "m1"),
    (401, '{"error": "plain string"}', AuthenticationError, "plain string"),
    (404, '[{"error": {"message": "gemini style", "status": "NOT_FOUND"}}]', None, "gemini style"),
    (500, "upstream exploded", ServerError, "upstream exploded"),
    (418, "", None, None),
])
def test_error_from_response(status: int, body: str, error_type: type | None, detail: str | None) -> None:
    error = error_from_response("Prov", status, body, {"Retry-After": "3"})
    if error_type is not None:
        assert type(error) is error_type
    assert error.status == status and error.body == body and error.retry_after == 3.0
    assert "Prov " in error.message
    if detail:
        assert f"The provider said: {detail}" in error.message
    else:
        assert "provider said" not in error.message


async def test_a_provider_quoting_the_key_in_its_error_does_not_leak_it(loopback):
    from orchestration.errors import AuthenticationError
    from orchestration.providers.config import ProviderConfig
    from orchestration.providers.transport import Transport
    from tests.support.loopback import Response

    key = "sk-test-key-not-real-0123456789abcdef"
    loopback.always("POST", "/v1/x", Response.json(
        {"error": {"message": f"Incorrect API key provided: {key}."}}, status=401))
    transport = Transport(ProviderConfig(id="p", base_url=loopback.url + "/v1", api_key=key))
    try:
        async with transport.stream("POST", "x", {}):
            raise AssertionError("a 401 must raise")
    except AuthenticationError as error:
        assert key not in error.message and key not in (error.body or "")
        assert "Incorrect API key provided" in error.message
    finally:
        await transport.aclose()


async def test_a_lone_surrogate_from_an_earlier_answer_is_sent_as_a_replacement_character(loopback):
    """A provider's ``\\ud800`` escape comes back in the next request's history; it is sent as U+FFFD instead
    of failing the request with an encoding error."""
    loopback.add("POST", "/v1/chat/completions", Response.json({"ok": True}))
    transport = make(loopback.url)
    try:
        await transport.request_json("POST", "chat/completions", {"messages": [{"content": "a\ud800b 😀"}]})
    finally:
        await transport.aclose()
    assert loopback.requests[0].json == {"messages": [{"content": "a\ufffdb 😀"}]}
    assert loopback.requests[0].header("content-type") == "application/json"


async def test_a_connection_error_without_a_message_is_named_by_its_type() -> None:
    # httpcore raises ReadError("") when the socket breaks under it; the message must still say what happened.
    # The one fake here is the client's transport: a broken socket cannot be produced on demand over loopback.
    def broken(request: Any) -> Any:
        raise httpx.ReadError("")

    client = httpx.AsyncClient(transport=httpx.MockTransport(broken))
    transport = Transport(ProviderConfig(id="test", base_url="http://127.0.0.1:9/v1", max_attempts=1),
                          client=client, sleep=Sleeps())
    with pytest.raises(ConnectionFailedError) as caught:
        await read_all(transport)
    await client.aclose()
    assert "Could not reach test at http://127.0.0.1:9/v1: ReadError." in caught.value.message
