"""HTTP for adapters: one httpx client per provider, error conversion, and retries before the first byte.

Everything that can go wrong on the wire leaves this module as a ``ProviderError`` subclass. A request is
retried only when trying again can succeed (408, 409, 425, 429, 5xx other than a server error that says the
request is invalid, connection failures; ``x-should-retry`` decides when the server sends it), and only while
nothing has been read from the response body, so nothing already shown to the user is ever re-sent. The final
error says how many attempts were made.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from orchestration.bounded_json import JSONLimitError, loads_bounded
from orchestration.errors import (
    ConnectionFailedError,
    ProviderError,
    RequestTimeoutError,
    StreamIdleError,
    answer_not_json,
    answer_past_limit,
    answer_too_large,
    empty_response,
    error_from_response,
)
from orchestration.lean_imports import import_httpx
from orchestration.providers.config import ProviderConfig
from orchestration.providers.sse import MAX_EVENT_BYTES
from orchestration.providers.tls import tls_verify
from orchestration.redaction import cut_redacted
from orchestration.unicode_text import replace_lone_surrogates
from orchestration.wire_capture import current_capture

if TYPE_CHECKING:
    import httpx

Sleep = Callable[[float], Awaitable[None]]
MAX_ERROR_BODY = 64_000  # characters of an error body kept for messages and traces
QUOTED_BODY_CHARS = 200  # characters of a body that is not JSON quoted in the error message
ERROR_BODY_READ_BYTES = 4 * MAX_ERROR_BODY  # bytes of an error body read at most; the rest is never read


async def _read_start(response: httpx.Response, limit: int) -> bytes:
    """Up to ``limit`` bytes of a body; the connection is closed after, so a huge error body is never read."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= limit:
            break
    return b"".join(chunks)[:limit]


def backoff_delay(attempt: int, retry_after: float | None, cap: float) -> float:
    """Seconds to wait before try ``attempt + 1``: Retry-After when given, else 0.5 s doubling with jitter."""
    if retry_after is not None:
        return min(retry_after, cap)
    return min(cap, 0.5 * (2.0 ** (attempt - 1)) * (0.8 + 0.4 * random.random()))  # jitter never passes the cap


def request_body(payload: dict[str, Any]) -> bytes:
    """The JSON body of a request, as httpx would write it, except that a lone surrogate (from a provider's
    earlier answer) is sent as U+FFFD instead of failing the request."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return replace_lone_surrogates(text).encode("utf-8")


def _with_attempts(error: ProviderError, attempts: int) -> ProviderError:
    """The final error of a request; when it was tried more than once, its message says how often."""
    error.attempts = attempts
    if attempts > 1:
        # the message may end with the provider's own words, which need not end a sentence
        ended = error.message.rstrip()
        error.message = (ended if ended.endswith((".", "!", "?")) else ended + ".") + \
            f" Parley gave up after {attempts} attempts."
        error.args = (error.message,)
    return error


class Transport:
    """HTTP for one provider; ``sleep`` is injectable so tests can check back-off without waiting."""

    def __init__(self, config: ProviderConfig, client: httpx.AsyncClient | None = None,
                 sleep: Sleep = asyncio.sleep) -> None:
        import_httpx()  # on the first client, not with the adapters: a window that sends nothing never loads it
        import httpx

        self.config = config
        self._own_client = client is None
        self._client = client or httpx.AsyncClient(
            timeout=httpx.Timeout(connect=config.connect_timeout, read=config.idle_timeout, write=30.0,
                                  pool=10.0),
            follow_redirects=False,
            verify=tls_verify(config.base_url),
        )
        self._sleep = sleep

    def secrets(self) -> list[str]:
        """The values to hide in anything shown of a body (the API key)."""
        return [self.config.api_key.get_secret_value()] if self.config.api_key is not None else []

    @property
    def name(self) -> str:
        return self.config.display_name

    def url(self, path: str) -> str:
        return self.config.base_url.rstrip("/") + "/" + path.lstrip("/")

    def headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        headers = {"Content-Type": "application/json", **self.config.headers, **self.config.auth_headers()}
        if extra:
            headers.update(extra)
        return headers

    async def aclose(self) -> None:
        if self._own_client:
            await self._client.aclose()

    @asynccontextmanager
    async def stream(self, method: str, path: str, payload: dict[str, Any] | None = None,
                     headers: dict[str, str] | None = None) -> AsyncIterator[httpx.Response]:
        """An open 2xx response whose body has not been read yet; retried while that is still true."""
        import httpx  # loaded by __init__

        attempt = 0
        capture = current_capture()
        while True:
            attempt += 1
            try:
                request = self._client.build_request(method, self.url(path), headers=self.headers(headers),
                                                     content=None if payload is None else request_body(payload))
                if capture is not None:
                    capture.sent(method, path, payload, self.secrets())
                response = await self._client.send(request, stream=True)
            except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
                bad_url = ConnectionFailedError(
                    f"The base URL for {self.name} is not usable ({self.config.base_url!r}): {exc}. "
                    "It should look like http://host:port/v1.", provider=self.name)
                bad_url.retryable = False  # trying again cannot help
                raise bad_url from exc
            except httpx.TimeoutException as exc:
                waited = (self.config.connect_timeout if isinstance(exc, httpx.ConnectTimeout)
                          else self.config.idle_timeout)
                error: ProviderError = RequestTimeoutError(
                    f"{self.name} did not answer within {waited:g} s ({type(exc).__name__}). "
                    "Check that the server is running and reachable.", provider=self.name)
            except httpx.HTTPError as exc:
                check = ("Check that the server is running and the base URL is right." if self.config.local
                         else "Check the base URL and your network.")
                error = ConnectionFailedError(
                    f"Could not reach {self.name} at {self.config.base_url}: {str(exc) or type(exc).__name__}. {check}",
                    provider=self.name)
            else:
                if capture is not None:
                    capture.received(response.status_code, response.headers.get("content-type"))
                if response.status_code < 300:
                    try:
                        yield response
                    finally:
                        await response.aclose()
                    return
                try:
                    body = (await _read_start(response, ERROR_BODY_READ_BYTES)).decode("utf-8", "replace")
                except httpx.HTTPError:
                    body = ""
                finally:
                    await response.aclose()
                # Some providers quote the rejected key in their error text; it must not reach messages or logs,
                # not even its start where the body is cut.
                body = cut_redacted(body, MAX_ERROR_BODY, self.secrets()).text
                if capture is not None:
                    capture.body(body.encode("utf-8"))
                error = error_from_response(self.name, response.status_code, body, dict(response.headers))
            if (not error.retryable or attempt >= self.config.max_attempts
                    or (error.retry_after is not None and error.retry_after > self.config.retry_cap)):
                raise _with_attempts(error, attempt)
            await self._sleep(backoff_delay(attempt, error.retry_after, self.config.retry_cap))

    async def iter_bytes(self, response: httpx.Response) -> AsyncIterator[bytes]:
        """The body, with network failures and idle timeouts converted."""
        import httpx  # loaded by __init__

        capture = current_capture()
        try:
            async for chunk in response.aiter_bytes():
                if capture is not None:
                    capture.body(chunk)
                yield chunk
        except httpx.TimeoutException as exc:
            raise StreamIdleError(
                f"{self.name} sent nothing for {self.config.idle_timeout:g} s; the answer was cut off.",
                provider=self.name) from exc
        except httpx.HTTPError as exc:
            raise ConnectionFailedError(
                f"The connection to {self.name} broke during the answer: {str(exc) or type(exc).__name__}.",
                provider=self.name) from exc

    async def read_capped(self, response: httpx.Response, limit: int = MAX_EVENT_BYTES) -> bytes:
        """A whole (non-streamed) body, refused with ``ResponseTooLargeError`` as soon as it passes ``limit``."""
        chunks: list[bytes] = []
        size = 0
        async for chunk in self.iter_bytes(response):
            size += len(chunk)
            if size > limit:
                raise answer_too_large(self.name, limit)
            chunks.append(chunk)
        return b"".join(chunks)

    async def request_json(self, method: str, path: str, payload: dict[str, Any] | None = None) -> Any:
        async with self.stream(method, path, payload) as response:
            body = await self.read_capped(response)
        text = body.decode("utf-8", "replace")
        if not text.strip():
            raise empty_response(self.name, text)
        return read_answer(self.name, text, self.secrets())


def read_answer(provider: str, text: str, secrets: list[str]) -> Any:
    """A whole answer's JSON; one that is not JSON, or past a limit, is a ``MalformedResponseError`` that quotes
    its start and keeps its (redacted) body."""
    try:
        return loads_bounded(text, what=f"the answer from {provider}")
    except JSONLimitError as exc:
        raise answer_past_limit(provider, exc, cut_redacted(text, MAX_ERROR_BODY, secrets).text) from None
    except ValueError as exc:
        raise answer_not_json(provider, cut_redacted(text, QUOTED_BODY_CHARS, secrets).text,
                              cut_redacted(text, MAX_ERROR_BODY, secrets).text) from exc
