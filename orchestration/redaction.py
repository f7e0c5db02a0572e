"""Hiding credentials in anything that is shown or stored: headers, URLs, request dicts and free text.

The inspector's raw request views and the run recorder pass everything through here, so an API key that
travels in a header, a query parameter, a JSON body field or an error message is never displayed or saved.
Text that is cut to a limit is redacted first and then cut so that the cut never ends inside a known secret
(``cut_redacted``): otherwise the start of a key straddling the cut would survive. Pure functions, no Qt, no
app imports.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple
from urllib.parse import SplitResult, urlsplit, urlunsplit

from orchestration.bounded_json import loads_bounded

REDACTED = "[redacted]"

# Header names (lower-case) whose values are credentials.
SENSITIVE_HEADERS = frozenset({"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key"})
# Query parameter and JSON field names (lower-case) whose values are credentials.
SENSITIVE_PARAMS = frozenset({"key", "api_key", "apikey", "access_token", "token"})
# Known secrets shorter than this are not replaced in free text: they would match ordinary words.
MIN_SECRET_CHARS = 8
# The most characters of a known secret's start that may be left where text is cut. The cut functions below keep
# none at all; this is the guarantee the tests hold them to.
MAX_SURVIVING_PREFIX_CHARS = 8

_QUERY_PARAM = re.compile(
    r"(?P<lead>[?&](?:" + "|".join(re.escape(p) for p in sorted(SENSITIVE_PARAMS)) + r")=)(?P<value>[^&#\s\"'<>]+)",
    re.IGNORECASE,
)
# Prefixes of API keys and tokens as providers and services issue them (OpenAI, Anthropic, OpenRouter, DeepSeek:
# sk-; Groq gsk_; xAI xai-; NVIDIA nvapi-; Fireworks fw_; Tavily tvly-; Perplexity pplx-; Hugging Face hf_;
# Replicate r8_; GitHub ghp_ and friends), followed by at least KEY_SHAPED_MIN_CHARS characters that include a
# digit, and Google's AIza keys. Used where no key is known but none may be kept: conversation titles.
KEY_SHAPED_MIN_CHARS = 20
_KEY_SHAPED = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    r"(?:sk|gsk|xai|nvapi|fw|tvly|pplx|hf|r8|gh[pousr]|github_pat)[-_]"
    rf"(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{{{KEY_SHAPED_MIN_CHARS},}}"
    r"|AIza[0-9A-Za-z_-]{30,})")
_BEARER = re.compile(r"(?P<lead>\bBearer\s+)(?P<value>[A-Za-z0-9._~+/=-]{8,})", re.IGNORECASE)


def is_sensitive_header(name: str) -> bool:
    return name.strip().lower() in SENSITIVE_HEADERS


def redact_headers(headers: Mapping[str, str] | Iterable[tuple[str, str]]) -> dict[str, str]:
    """A copy with credential headers' values replaced; names and order kept."""
    items = headers.items() if isinstance(headers, Mapping) else headers
    return {name: (REDACTED if is_sensitive_header(name) else value) for name, value in items}


def _redact_query(query: str) -> str:
    if not query:
        return query
    pieces = []
    for piece in query.split("&"):
        name, sep, _value = piece.partition("=")
        pieces.append(f"{name}={REDACTED}" if sep and name.lower() in SENSITIVE_PARAMS else piece)
    return "&".join(pieces)


def redact_url(url: str) -> str:
    """The URL with key-like query parameters and any password in the user info replaced."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return redact_text(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        user, sep, _password = userinfo.partition(":")
        netloc = f"{user}:{REDACTED}@{host}" if sep else netloc
    redacted = SplitResult(parts.scheme, netloc, parts.path, _redact_query(parts.query), parts.fragment)
    return urlunsplit(redacted)


def redact_json_value(value: Any) -> Any:
    """A copy of a JSON-like value with credential fields (``api_key``, ``token``, ...) replaced, at any depth."""
    if isinstance(value, Mapping):
        return {k: (REDACTED if isinstance(k, str) and _sensitive_field(k) and v is not None
                    else redact_json_value(v)) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_json_value(v) for v in value]
    return value


def _sensitive_field(name: str) -> bool:
    lowered = name.lower()
    return lowered in SENSITIVE_PARAMS or lowered in SENSITIVE_HEADERS


def redact_body(body: Any) -> Any:
    """A request or response body: JSON (as a value or a string) gets its credential fields replaced."""
    if isinstance(body, Mapping | list | tuple):
        return redact_json_value(body)
    if isinstance(body, bytes):
        try:
            body = body.decode()
        except UnicodeDecodeError:
            return body
    if isinstance(body, str):
        try:
            parsed = loads_bounded(body, what="the body")
        except ValueError:  # not JSON, or past the limits: redacted as text
            return redact_text(body)
        if isinstance(parsed, dict | list):
            return json.dumps(redact_json_value(parsed), ensure_ascii=False)
    return body


def redact_request(request: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of a request dict (``url``, ``headers``, ``body``/``json``/``params``, anything else kept)."""
    out: dict[str, Any] = dict(request)
    if isinstance(out.get("url"), str):
        out["url"] = redact_url(out["url"])
    if out.get("headers") is not None:
        out["headers"] = redact_headers(out["headers"])
    for field in ("body", "json", "content", "data"):
        if out.get(field) is not None:
            out[field] = redact_body(out[field])
    if isinstance(out.get("params"), Mapping):
        out["params"] = redact_json_value(out["params"])
    return out


def replace_secrets(text: str, secrets: Iterable[str]) -> str:
    """Only the given secret values replaced (for user content, where URL-looking text must stay as written)."""
    for secret in secrets:
        if secret and len(secret) >= MIN_SECRET_CHARS:
            text = text.replace(secret, REDACTED)
    return text


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """Free text (an error message, a log line): key-like URL parameters, bearer tokens and the given secret
    values are replaced."""
    text = replace_secrets(text, secrets)
    text = _QUERY_PARAM.sub(lambda m: m.group("lead") + REDACTED, text)
    return _BEARER.sub(lambda m: m.group("lead") + REDACTED, text)


def redact_key_shaped(text: str) -> str:
    """Strings shaped like a provider's API key (known prefixes, long, with digits) replaced, key in use or not."""
    return _KEY_SHAPED.sub(REDACTED, text)


def _usable(secrets: Iterable[str]) -> list[str]:
    return [s for s in secrets if s and len(s) >= MIN_SECRET_CHARS]


def secret_start_length(text: str, secrets: Iterable[str]) -> int:
    """How many characters at the end of ``text`` could be the start of a known secret (0: none).

    A secret that continues beyond the end of ``text`` (cut off, or still streaming) is not caught by
    ``replace_secrets``; these characters are what would be left of it.
    """
    longest = 0
    for secret in _usable(secrets):
        for length in range(min(len(secret), len(text)), longest, -1):
            if text.endswith(secret[:length]):
                longest = length
                break
    return longest


def withhold_secret_start(text: str, secrets: Iterable[str]) -> tuple[str, str]:
    """``text`` split into what is safe to show now and an end that could be the start of a known secret."""
    held = secret_start_length(text, secrets)
    return (text[:len(text) - held], text[len(text) - held:]) if held else (text, "")


class Cut(NamedTuple):
    text: str  # what is kept: redacted, at most the limit, never ending inside a known secret
    rest: str  # the redacted text that was cut off (its length is what the views report as omitted)


def cut_redacted(text: str, limit: int, secrets: Iterable[str] = (), *, continues: bool = False) -> Cut:
    """``text`` redacted (``redact_text``), then cut to at most ``limit`` characters, backing off to before any
    known secret the cut would fall inside, so no start of a secret survives the cut.

    ``continues``: ``text`` was itself already cut (a capture that stopped at a byte limit), so a secret may run
    on past its end; a possible start of one there is dropped too.
    """
    secrets = _usable(secrets)
    whole = redact_text(text, secrets)
    if len(whole) <= limit and not continues:
        return Cut(whole, "")
    kept = whole[:max(limit, 0)]
    kept, _held = withhold_secret_start(kept, secrets)
    return Cut(kept, whole[len(kept):])


__all__ = [
    "KEY_SHAPED_MIN_CHARS",
    "MAX_SURVIVING_PREFIX_CHARS",
    "MIN_SECRET_CHARS",
    "REDACTED",
    "SENSITIVE_HEADERS",
    "SENSITIVE_PARAMS",
    "Cut",
    "cut_redacted",
    "is_sensitive_header",
    "redact_body",
    "redact_headers",
    "redact_json_value",
    "redact_key_shaped",
    "redact_request",
    "redact_text",
    "redact_url",
    "replace_secrets",
    "secret_start_length",
    "withhold_secret_start",
]
