"""Typed provider errors, made once at the adapter boundary.

Every HTTP failure, network failure and error frame inside a stream becomes one of these, keeping the status,
the body and Retry-After, with a message a user can act on. The loop turns them into ``error`` events; the CLI
prints ``user_message`` and exits 1.
"""

from __future__ import annotations

import email.utils
import json
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from orchestration.messages import AssistantMessage


class ProviderError(Exception):
    """A provider or the network failed a model call."""

    code = "provider_error"
    retryable = False

    def __init__(
        self,
        message: str,
        *,
        provider: str = "",
        status: int | None = None,
        body: str | None = None,
        retry_after: float | None = None,
        provider_code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.status = status
        self.body = body
        self.retry_after = retry_after
        self.provider_code = provider_code
        self.partial: AssistantMessage | None = None

    @property
    def user_message(self) -> str:
        return self.message


class BadRequestError(ProviderError):
    code = "bad_request"


class AuthenticationError(ProviderError):
    code = "authentication"


class PermissionDeniedError(ProviderError):
    code = "permission_denied"


class NotFoundError(ProviderError):
    code = "not_found"


class RequestTimeoutError(ProviderError):
    code = "request_timeout"
    retryable = True


class ConflictError(ProviderError):
    code = "conflict"
    retryable = True


class PayloadTooLargeError(ProviderError):
    code = "payload_too_large"


class RateLimitError(ProviderError):
    code = "rate_limited"
    retryable = True


class ServerError(ProviderError):
    code = "server_error"
    retryable = True


class OverloadedError(ProviderError):
    code = "overloaded"
    retryable = True


class ConnectionFailedError(ProviderError):
    """The server could not be reached or dropped the connection before answering."""

    code = "connection_failed"
    retryable = True


class StreamError(ProviderError):
    """An error frame inside an otherwise successful stream, or a stream that broke off."""

    code = "stream_error"


class StreamIdleError(StreamError):
    code = "stream_idle"


class MalformedResponseError(ProviderError):
    code = "malformed_response"


_BY_STATUS: dict[int, tuple[type[ProviderError], str]] = {
    400: (BadRequestError, "rejected the request (400)"),
    401: (AuthenticationError, "rejected the API key (401). Check the key for this provider"),
    403: (PermissionDeniedError, "refused access (403). The key may lack permission for this model or region"),
    404: (NotFoundError, "does not know this model or endpoint (404). Check the model name and base URL"),
    408: (RequestTimeoutError, "timed out waiting for the request (408). Try again"),
    409: (ConflictError, "reported a conflict (409). Try again"),
    413: (PayloadTooLargeError, "says the request is too large (413). Shorten the conversation or attachments"),
    422: (BadRequestError, "could not process the request (422)"),
    429: (RateLimitError, "is rate limiting or out of quota (429). Wait and try again, or check your plan"),
    529: (OverloadedError, "is overloaded (529). Try again shortly"),
}


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def provider_message_from_body(body: str | None) -> tuple[str | None, str | None]:
    """The provider's own error message and code from a JSON error body, if it has one."""
    if not body:
        return None, None
    try:
        obj: Any = json.loads(body)
    except ValueError:
        text = body.strip()
        return (text[:300] if text else None), None
    if isinstance(obj, list) and obj:
        obj = obj[0]
    if not isinstance(obj, dict):
        return None, None
    err = obj.get("error", obj)
    if isinstance(err, str):
        return err, None
    if isinstance(err, dict):
        message = err.get("message") or err.get("msg") or err.get("detail")
        code = err.get("code") or err.get("type") or err.get("status")
        return (str(message) if message else None), (str(code) if code is not None else None)
    return None, None


def error_from_response(
    provider: str, status: int, body: str | None, headers: dict[str, str] | None = None
) -> ProviderError:
    """Convert a non-2xx HTTP response into our typed error."""
    headers = {k.lower(): v for k, v in (headers or {}).items()}
    if status in _BY_STATUS:
        cls, what = _BY_STATUS[status]
    elif status >= 500:
        cls, what = ServerError, f"had a server error ({status}). Try again later"
    else:
        cls, what = ProviderError, f"returned HTTP {status}"
    detail, provider_code = provider_message_from_body(body)
    name = provider or "The provider"
    message = f"{name} {what}."
    if detail:
        message += f" The provider said: {detail}"
    return cls(
        message,
        provider=provider,
        status=status,
        body=body,
        retry_after=parse_retry_after(headers.get("retry-after")),
        provider_code=provider_code,
    )


def stream_error_from_frame(provider: str, payload: Any) -> StreamError:
    """An error frame inside a stream (``event: error`` or a chunk with an ``error`` member)."""
    err = payload.get("error", payload) if isinstance(payload, dict) else payload
    detail = None
    code = None
    status = None
    if isinstance(err, dict):
        detail = err.get("message")
        code = err.get("code") or err.get("type")
        raw_status = err.get("status_code") or (err.get("code") if isinstance(err.get("code"), int) else None)
        status = raw_status if isinstance(raw_status, int) else None
    elif isinstance(err, str):
        detail = err
    name = provider or "The provider"
    message = f"{name} reported an error during the answer: {detail or 'no details given'}"
    return StreamError(
        message,
        provider=provider,
        status=status,
        body=json.dumps(payload) if not isinstance(payload, str) else payload,
        provider_code=str(code) if code is not None else None,
    )


def mentions_tools(error: ProviderError) -> bool:
    """True when a rejected request looks like it was rejected because of its tools."""
    if error.status not in (400, 404, 422, 501):
        return False
    text = f"{error.body or ''} {error.message}".lower()
    return "tool" in text or "function" in text
