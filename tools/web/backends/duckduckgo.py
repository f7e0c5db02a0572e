"""DuckDuckGo through the ``ddgs`` library: the default backend, because it needs no key.

DuckDuckGo has no official search API; ``ddgs`` (the successor of ``duckduckgo_search``) reads its result pages
and can fall back to other engines (``SearchSettings.duckduckgo_engines``: "duckduckgo", a list, or "auto").
The library is synchronous, so the call runs in a worker thread with the library's own timeout; results are
``[{"title", "href", "body"}]``. ``ddgs`` raises ``DDGSException("No results found.")`` for an empty answer,
which is an empty list here, and ``RatelimitException``/``TimeoutException`` for the obvious cases.

``client_factory`` is the seam tests use: the network is not available to them, so they hand in a small fake
with the same ``text()`` signature and check the arguments and the mapping at the library boundary.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from tools.web.search_types import SearchError, SearchHit, SearchQuery, hit_from

SAFE_SEARCH = {"off": "off", "moderate": "moderate", "strict": "on"}
TIME_LIMITS = {"day": "d", "week": "w", "month": "m", "year": "y"}
NO_RESULTS = "No results found."  # ddgs's message when nothing matched


class TextSearcher(Protocol):
    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]: ...


def _ddgs_client(timeout: int) -> TextSearcher:
    from ddgs import DDGS  # imported on first use: it loads an HTTP stack the rest of Parley does not need

    return DDGS(timeout=timeout)


def _exception_types() -> tuple[type[Exception], type[Exception], type[Exception]]:
    from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

    return DDGSException, RatelimitException, TimeoutException


@dataclass
class DuckDuckGoBackend:
    timeout: float
    region: str = "wt-wt"
    engines: str = "duckduckgo"
    client_factory: Callable[[int], TextSearcher] = field(default=_ddgs_client)
    id: Literal["duckduckgo"] = "duckduckgo"
    label: str = "DuckDuckGo"
    key_required: bool = False

    def _search_blocking(self, query: SearchQuery) -> list[dict[str, Any]]:
        client = self.client_factory(max(1, math.ceil(self.timeout)))
        return client.text(query.text_with_site_operators(), region=self.region,
                           safesearch=SAFE_SEARCH[query.safe_search],
                           timelimit=TIME_LIMITS[query.time_range] if query.time_range else None,
                           max_results=query.count, backend=self.engines)

    async def search(self, query: SearchQuery, key: str | None) -> list[SearchHit]:
        library_error, rate_limited, timed_out = _exception_types()
        try:
            import asyncio  # loaded with the run's event loop, not when the tools are built or listed

            rows = await asyncio.to_thread(self._search_blocking, query)
        except rate_limited as exc:
            raise SearchError("quota", f"DuckDuckGo is rate limiting these searches ({exc}). Do not repeat this "
                              "search now; try again in a few minutes, or add a key for another search backend "
                              "in Preferences > Search.") from None
        except timed_out:
            raise SearchError("timeout", f"DuckDuckGo did not answer within {self.timeout:g} s. Try again "
                              "later.") from None
        except library_error as exc:
            if str(exc) == NO_RESULTS:
                return []
            raise SearchError("network", f"DuckDuckGo search failed ({exc}). Check the network connection, try "
                              "again later, or pick another backend in Preferences > Search.") from None
        if not isinstance(rows, list):
            raise SearchError("bad_response", "DuckDuckGo sent results in an unexpected shape.")
        hits = (hit_from(self.id, title=row.get("title"), url=row.get("href"), snippet=row.get("body"))
                for row in rows if isinstance(row, dict))
        return [hit for hit in hits if hit is not None][: query.count]
