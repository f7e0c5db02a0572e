"""The vocabulary shared by ``web_search`` and its backends: a query, a normalized hit, a typed failure.

Every backend turns its own wire format into ``SearchHit`` and its own failures into ``SearchError``, so the
tool, the model's text and the search-results pane see one shape whichever service answered.
"""

from __future__ import annotations

import html
import math
import re
from dataclasses import asdict, dataclass
from typing import Any, Literal, Protocol

from tools.web.settings import SafeSearch, SearchBackendId

TimeRange = Literal["day", "week", "month", "year"]
SearchErrorKind = Literal[
    "missing_key",  # no key in the keyring for a backend that needs one
    "not_configured",  # a required setting (SearXNG's address) is missing
    "bad_request",  # 400/422: the arguments can be fixed by the model
    "auth",  # 401/403: the key is wrong or lacks access
    "quota",  # 429 (and Tavily's plan limits): do not retry now
    "server",  # 5xx: try later
    "network",  # could not connect, connection dropped
    "timeout",  # no answer in time
    "bad_response",  # an answer we cannot read (not JSON, unexpected status, wrong shape)
]

SNIPPET_CHARS = 300  # longest snippet kept per hit; search snippets are summaries, not pages

_TAG = re.compile(r"<[^>]{0,200}>")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class SearchQuery:
    """A validated search, in the backend-neutral form each backend maps to its own parameters."""

    text: str
    count: int
    time_range: TimeRange | None = None
    domains: tuple[str, ...] = ()
    safe_search: SafeSearch = "moderate"

    def text_with_site_operators(self) -> str:
        """The query with ``site:`` operators for backends that filter domains only through the query."""
        if not self.domains:
            return self.text
        sites = " OR ".join(f"site:{domain}" for domain in self.domains)
        return f"{self.text} ({sites})" if len(self.domains) > 1 else f"{self.text} {sites}"


@dataclass(frozen=True)
class SearchHit:
    """One result, normalized for the model's text and the search-results pane."""

    title: str
    url: str
    snippet: str
    backend: str
    published: str | None = None
    score: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class SearchError(Exception):
    """A search that failed; ``message`` is written for the model and the user and names the backend."""

    def __init__(self, kind: SearchErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class SearchBackend(Protocol):
    """One search service."""

    @property
    def id(self) -> SearchBackendId: ...  # read-only, so each backend may narrow it to its own Literal

    label: str  # the service's name as the user knows it ("Brave Search")
    key_required: bool

    async def search(self, query: SearchQuery, key: str | None) -> list[SearchHit]:
        """Hits for ``query`` (at most ``query.count``), or ``SearchError``."""
        ...


def clean_text(value: Any, limit: int = SNIPPET_CHARS) -> str:
    """Plain text from a backend's title or snippet: tags dropped, entities decoded, whitespace collapsed."""
    if not isinstance(value, str):
        return ""
    text = _SPACE.sub(" ", html.unescape(_TAG.sub("", value))).strip()
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def optional_text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def optional_score(value: Any) -> float | None:
    """A finite score; None for anything else (JSON allows 1e999 and integers past any float)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        score = float(value)
    except OverflowError:
        return None
    return score if math.isfinite(score) else None


def hit_from(backend: str, *, title: Any, url: Any, snippet: Any, published: Any = None,
             score: Any = None) -> SearchHit | None:
    """A hit from loosely typed wire fields; None when there is no usable http(s) URL."""
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return None
    return SearchHit(title=clean_text(title, limit=200) or url, url=url, snippet=clean_text(snippet),
                     backend=backend, published=optional_text(published), score=optional_score(score))
