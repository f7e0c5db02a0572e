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

from orchestration.bounded_json import JSONLimitError, loads_bounded

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
        self.attempts = 1  # requests made before giving up (the transport sets it)

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


class TooEarlyError(ProviderError):
    code = "too_early"
    retryable = True


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


class ModelCallTimeoutError(ProviderError):
    """One model call ran past ``LoopLimits.model_call_timeout`` (a stream trickling bytes never goes idle)."""

    code = "model_call_timeout"


class ResponseTooLargeError(ProviderError):
    """One stream event, a whole body or the answer passed its size limit; reading stopped."""

    code = "response_too_large"


def event_too_large(provider: str, limit: int) -> ResponseTooLargeError:
    name = provider or "The provider"
    return ResponseTooLargeError(
        f"{name} sent a stream event larger than {limit // (1024 * 1024)} MiB, the limit for one event; reading "
        "stopped and what arrived before it was kept.", provider=provider)


def answer_too_large(provider: str, limit: int) -> ResponseTooLargeError:
    """A whole (non-streamed) body passed ``limit`` bytes while it arrived."""
    name = provider or "The provider"
    return ResponseTooLargeError(
        f"{name} sent an answer larger than {limit // (1024 * 1024)} MiB, the limit for one answer body; reading "
        "stopped.", provider=provider)


class MalformedResponseError(ProviderError):
    code = "malformed_response"


def answer_not_json(provider: str, quoted: str, body: str) -> MalformedResponseError:
    """A whole answer that is not JSON; ``quoted`` (its start) and ``body`` are already redacted and cut."""
    return MalformedResponseError(f"{provider} answered with something that is not JSON: {quoted!r}",
                                  provider=provider, body=body)


def answer_past_limit(provider: str, limit: JSONLimitError, body: str) -> MalformedResponseError:
    """A whole answer that is JSON past a size or depth limit; ``body`` is already redacted and cut."""
    return MalformedResponseError(f"{provider} sent a malformed answer: {limit}", provider=provider, body=body)


class EmptyResponseError(ProviderError):
    """A successful status with no content: an empty body, or a stream that ended without a single event."""

    code = "empty_response"


EMPTY_QUOTED_CHARS = 200  # characters of what an empty-handed server sent, quoted in the message


def empty_response(provider: str, sent: str) -> EmptyResponseError:
    """The error for a 200 answer with no content; ``sent`` is what the body held (already redacted)."""
    shown = sent.strip()
    what = "an empty body" if not shown else repr(shown[:EMPTY_QUOTED_CHARS]) + (
        " (cut)" if len(shown) > EMPTY_QUOTED_CHARS else "")
    name = provider or "The provider"
    return EmptyResponseError(
        f"{name}: the server answered with no content: {what}. Try again; if it keeps happening, check the base "
        "URL and the model.", provider=provider, body=sent or None)


_SETTINGS = "Preferences > Providers"

_BY_STATUS: dict[int, tuple[type[ProviderError], str]] = {
    400: (BadRequestError, "{name} rejected the request (400). Check the model name and the request settings."),
    401: (AuthenticationError, "The {name} API key was rejected (401). Check it in " + _SETTINGS + "."),
    403: (PermissionDeniedError, "{name} refused access (403). Check that the API key may use this model and "
                                 "that the service is available in your region."),
    404: (NotFoundError, "{name} does not know this model or endpoint (404). Check the model name and the base URL "
                         "in " + _SETTINGS + "."),
    408: (RequestTimeoutError, "{name} timed out waiting for the request (408). Try again; if it keeps happening, "
                               "check your network."),
    409: (ConflictError, "{name} reported a conflict with another request (409). Try again."),
    413: (PayloadTooLargeError, "{name} says the request is too large (413). Shorten the conversation or remove "
                                "attachments."),
    422: (BadRequestError, "{name} could not process the request (422). Check the model name and the request "
                           "settings."),
    425: (TooEarlyError, "{name} asked for the request to be sent again (425 too early). Try again."),
    429: (RateLimitError, "{name} is rate limiting requests or the quota is used up (429). Wait a moment and try "
                          "again, or check your plan and billing."),
    500: (ServerError, "{name} had an internal error (500). Try again later."),
    502: (ServerError, "{name}, or a gateway in front of it, failed (502 bad gateway). Try again later."),
    503: (ServerError, "{name} is unavailable right now (503). Try again later."),
    504: (ServerError, "{name} took too long to answer (504 gateway timeout). Try again later."),
    529: (OverloadedError, "{name} is overloaded (529). Try again shortly."),
}

# A server error whose message or code says the request itself is wrong fails the same way every time: not retried.
_DETERMINISTIC_MARKERS = (
    "validation", "invalid_request", "invalid request", "invalid argument", "invalid_argument", "invalid value",
    "invalid parameter", "malformed", "unsupported", "not supported", "context length", "context_length",
    "maximum context", "context size", "too many tokens", "must be", "is required", "schema", "unknown field",
    "unrecognized", "bad request",
)
# Gateways and overload say nothing about the request, whatever text comes with them.
_TRANSIENT_STATUSES = (502, 503, 504, 529)

# Gemini answers a bad key with 400 INVALID_ARGUMENT; these markers make it the authentication error it is.
_KEY_REJECTED_MARKERS = ("API_KEY_INVALID", "API key not valid")


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
    """The provider's own error message and code from a JSON error body, if it has one. Raises
    ``JSONLimitError`` for a body past the JSON limits."""
    if not body:
        return None, None
    try:
        obj: Any = loads_bounded(body, what="the error body")
    except JSONLimitError:
        raise
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
    """Convert a non-2xx HTTP response into our typed error, with a message naming the provider and what to
    check; the provider's own message is appended."""
    headers = {k.lower(): v for k, v in (headers or {}).items()}
    name = provider or "The provider"
    if status == 400 and body and any(marker in body for marker in _KEY_REJECTED_MARKERS):
        cls, template = _BY_STATUS[401][0], _BY_STATUS[401][1].replace("(401)", "(400)")
    elif status in _BY_STATUS:
        cls, template = _BY_STATUS[status]
    elif status >= 500:
        cls, template = ServerError, "{name} had a server error ({status}). Try again later."
    else:
        cls, template = ProviderError, "{name} returned HTTP {status}."
    message = template.format(name=name, status=status)
    try:
        detail, provider_code = provider_message_from_body(body)
    except JSONLimitError as exc:
        detail, provider_code = None, None
        message += f" Its error body could not be read: {exc}"
    if detail:
        message += f" The provider said: {detail}"
    error = cls(
        message,
        provider=provider,
        status=status,
        body=body,
        retry_after=parse_retry_after(headers.get("retry-after")),
        provider_code=provider_code,
    )
    should_retry = headers.get("x-should-retry", "").strip().lower()  # OpenAI and Anthropic send it
    if should_retry in ("true", "false"):
        error.retryable = should_retry == "true"
    elif (error.retryable and status >= 500 and status not in _TRANSIENT_STATUSES
          and is_deterministic(detail, provider_code)):
        error.retryable = False
        # a server that reports a request it refuses as its own error (llama-cpp-python: 500 for a message it
        # cannot validate): trying again later would not help, so the message does not say to
        error.message = (f"{name} rejected the request ({status}): its message says the request is invalid. Check "
                         "the model name and the request settings." + (f" The provider said: {detail}" if detail
                                                                       else ""))
        error.args = (error.message,)
    return error


def is_deterministic(detail: str | None, code: str | None) -> bool:
    """True when a server error's own message or code says the request is invalid (it will fail again)."""
    text = f"{detail or ''} {code or ''}".lower()
    return any(marker in text for marker in _DETERMINISTIC_MARKERS)


# Hints for error frames inside a stream, matched against the provider's error code or type.
_FRAME_HINTS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("overloaded",), "It is overloaded; try again shortly."),
    (("quota", "billing"), "Check your plan and billing."),
    (("rate_limit", "rate-limit", "too_many"), "Wait a moment and try again."),
    (("auth", "api_key", "permission"), "Check the API key in " + _SETTINGS + "."),
    (("server", "internal", "unavailable"), "Try again later."),
)


def _frame_hint(code: str | None) -> str:
    if not code:
        return ""
    lowered = code.lower()
    for markers, hint in _FRAME_HINTS:
        if any(marker in lowered for marker in markers):
            return " " + hint
    return ""


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
    message += _frame_hint(str(code) if code is not None else None)
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
