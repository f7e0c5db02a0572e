"""One HTTP request to a search API, with every failure turned into a ``SearchError`` that names the service.

The search APIs differ in paths, parameters and result shapes, but fail alike: a status class says who can fix
it (the model, the user's key, time), and the body usually carries a one-line reason. This module reads both
once, so each backend module only builds its request and reads its result list. One attempt, no retries: a
429 must not turn into a burst of requests, and the model can decide what to do with the message.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from orchestration.bounded_json import JSONLimitError, loads_bounded
from tools.web.search_types import SearchError, SearchErrorKind

Override = tuple[SearchErrorKind, str]  # a backend's own explanation of one status

MAX_RESPONSE_BYTES = 4 * 1024 * 1024  # a search answer is a few KB; more means a wrong base URL
CONNECT_TIMEOUT = 10.0  # seconds; the overall per-request timeout comes from SearchSettings.timeout
DETAIL_CHARS = 300  # longest reason quoted from an error body
QUOTA_STATUSES = frozenset({429, 432, 433})  # 432/433: Tavily's plan and pay-as-you-go limits


def key_hint(backend_id: str, label: str) -> str:
    return f"Add a {label} key in Preferences > Search or with `parley keys set search:{backend_id}`."


def _detail(body: bytes) -> str:
    """The reason an API gave for an error, from the usual JSON shapes; empty when there is none."""
    try:
        data = loads_bounded(body, what="the error body")
    except ValueError:
        return ""
    candidates: list[Any] = []
    if isinstance(data, dict):
        error, detail = data.get("error"), data.get("detail")
        if isinstance(detail, dict):  # Tavily: {"detail": {"error": "..."}}
            candidates.append(detail.get("error") or detail.get("message"))
        if isinstance(error, dict):  # Brave: {"error": {"detail": "...", "code": "..."}}
            candidates += [error.get("detail"), error.get("message"), error.get("code")]
        candidates += [error, detail, data.get("message")]  # Exa and others: {"error": "..."}
    for value in candidates:
        if isinstance(value, str) and value.strip():
            text = " ".join(value.split())
            return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 1] + "…"
    return ""


def error_for_status(backend_id: str, label: str, status: int, body: bytes, retry_after: str | None = None,
                     overrides: dict[int, Override] | None = None) -> SearchError:
    """The ``SearchError`` for a non-2xx answer."""
    detail = _detail(body)
    reason = f": {detail}" if detail else ""
    if overrides and status in overrides:
        kind, message = overrides[status]
        return SearchError(kind, f"{message}{reason}.")
    if status in (400, 422):
        return SearchError("bad_request", f"{label} refused the search (HTTP {status}){reason}. Change the "
                           "arguments (query, count, time_range, domains) and try again.")
    if status in (401, 403):
        return SearchError("auth", f"{label} refused the API key (HTTP {status}){reason}. Check the key: "
                           + key_hint(backend_id, label))
    if status in QUOTA_STATUSES:
        wait = f"; it asks to wait {retry_after} s" if retry_after and retry_after.strip().isdigit() else ""
        return SearchError("quota", f"{label} says the rate limit or quota is used up (HTTP {status}){wait}"
                           f"{reason}. Do not repeat this search now; answer with what you have or tell the user.")
    if status >= 500:
        return SearchError("server", f"{label} had a server error (HTTP {status}){reason}. Try again later.")
    return SearchError("bad_response", f"{label} answered HTTP {status}{reason}. Check the {label} address in "
                       "Preferences > Search.")


async def request_json(backend_id: str, label: str, method: str, url: str, *, time_limit: float,
                       headers: dict[str, str] | None = None, params: dict[str, Any] | None = None,
                       json_body: Any = None, overrides: dict[int, Override] | None = None) -> Any:
    """The parsed JSON body of a 2xx answer, or ``SearchError``."""
    import httpx  # with the first search, not when the tool list is built (issue 17)

    host = urlsplit(url).netloc or url
    limits = httpx.Timeout(time_limit, connect=min(time_limit, CONNECT_TIMEOUT))
    try:
        async with httpx.AsyncClient(timeout=limits, follow_redirects=False) as client, client.stream(
                method, url, headers={"Accept": "application/json", **(headers or {})}, params=params,
                json=json_body) as response:
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_RESPONSE_BYTES:
                    raise SearchError("bad_response", f"{label} sent more than {MAX_RESPONSE_BYTES // 1024 // 1024} "
                                      f"MiB for one search. Check the {label} address in Preferences > Search.")
    except httpx.TimeoutException:
        raise SearchError("timeout", f"{label} did not answer within {time_limit:g} s. Try again later.") from None
    except httpx.HTTPError as exc:
        reason = str(exc) or type(exc).__name__
        raise SearchError("network", f"Could not reach {label} at {host} ({reason}). Check the network "
                          f"connection and the {label} address in Preferences > Search.") from None
    if response.status_code >= 300:
        raise error_for_status(backend_id, label, response.status_code, bytes(body),
                               response.headers.get("Retry-After"), overrides)
    try:
        return loads_bounded(bytes(body), what=f"The answer from {label}")
    except JSONLimitError as exc:
        raise SearchError("bad_response", str(exc)) from None
    except ValueError:
        raise SearchError("bad_response", f"{label} sent an answer that is not JSON. Check the {label} address "
                          "in Preferences > Search.") from None


def results_list(label: str, data: Any, *path: str) -> list[dict[str, Any]]:
    """``data[path...]`` as a list of objects; a missing key means no results, a wrong type a bad response."""
    value: Any = data
    for key in path:
        if not isinstance(value, dict):
            raise SearchError("bad_response", f"{label} sent results in an unexpected shape.")
        value = value.get(key)
        if value is None:
            return []
    if not isinstance(value, list):
        raise SearchError("bad_response", f"{label} sent results in an unexpected shape.")
    return [item for item in value if isinstance(item, dict)]
