"""SearXNG (``GET /search?format=json``): a self-hosted metasearch engine; its address is required.

Request: ``q``, ``format=json``, ``safesearch`` 0/1/2, ``time_range`` day/week/month/year, ``pageno`` 1; domains
become ``site:`` operators. Response: ``{"results": [{"title", "url", "content", "engine", "score",
"publishedDate"?}]}``; SearXNG returns a fixed page, trimmed here to the requested count. An instance without
``json`` in ``search.formats`` answers 403, which gets its own message. SearXNG has no keys; a key stored under
``search:searxng`` is sent as a bearer token for instances behind an authenticating proxy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tools.web.backends.http import request_json, results_list
from tools.web.search_types import SearchError, SearchHit, SearchQuery, hit_from

SAFE_SEARCH_LEVELS = {"off": 0, "moderate": 1, "strict": 2}
FORBIDDEN = ("SearXNG refused the search (HTTP 403). Most instances do this when JSON output is off: add json to "
             "search.formats in the instance's settings.yml. Behind an authenticating proxy, check the key stored "
             "as search:searxng")


@dataclass
class SearxngBackend:
    base_url: str | None
    timeout: float
    id: Literal["searxng"] = "searxng"
    label: str = "SearXNG"
    key_required: bool = False

    async def search(self, query: SearchQuery, key: str | None) -> list[SearchHit]:
        if not self.base_url:
            raise SearchError("not_configured", "SearXNG needs the address of your instance (for example "
                              "http://localhost:8888). Set it in Preferences > Search, or pick another backend.")
        params: dict[str, Any] = {"q": query.text_with_site_operators(), "format": "json", "pageno": 1,
                                  "safesearch": SAFE_SEARCH_LEVELS[query.safe_search]}
        if query.time_range:
            params["time_range"] = query.time_range
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        data = await request_json(self.id, self.label, "GET", f"{self.base_url}/search", time_limit=self.timeout,
                                  headers=headers, params=params,
                                  overrides={403: ("not_configured", FORBIDDEN)})
        hits = (hit_from(self.id, title=item.get("title"), url=item.get("url"), snippet=item.get("content"),
                         published=item.get("publishedDate"), score=item.get("score"))
                for item in results_list(self.label, data, "results"))
        return [hit for hit in hits if hit is not None][: query.count]
