"""Brave Search (``GET /res/v1/web/search``, ``X-Subscription-Token`` key): an independent web index.

Request: ``q``, ``count`` (at most 20), ``safesearch`` off/moderate/strict, ``freshness`` pd/pw/pm/py. Brave has
no domain parameter, so domains become ``site:`` operators in the query. Response:
``{"web": {"results": [{"title", "url", "description", "page_age"?, "age"?}]}}``; ``web`` is absent when nothing
matched. Descriptions carry ``<strong>`` highlights, which are stripped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tools.web.backends.http import request_json, results_list
from tools.web.search_types import SearchHit, SearchQuery, hit_from

FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}


@dataclass
class BraveBackend:
    base_url: str
    timeout: float
    id: Literal["brave"] = "brave"
    label: str = "Brave Search"
    key_required: bool = True

    async def search(self, query: SearchQuery, key: str | None) -> list[SearchHit]:
        params: dict[str, Any] = {"q": query.text_with_site_operators(), "count": query.count,
                                  "safesearch": query.safe_search}
        if query.time_range:
            params["freshness"] = FRESHNESS[query.time_range]
        data = await request_json(self.id, self.label, "GET", f"{self.base_url}/res/v1/web/search",
                                  time_limit=self.timeout, headers={"X-Subscription-Token": key or ""}, params=params)
        hits = (hit_from(self.id, title=item.get("title"), url=item.get("url"), snippet=item.get("description"),
                         published=item.get("page_age") or item.get("age"))
                for item in results_list(self.label, data, "web", "results"))
        return [hit for hit in hits if hit is not None][: query.count]
