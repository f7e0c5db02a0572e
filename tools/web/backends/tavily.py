"""Tavily (``POST /search``, bearer key): a search API built for LLM agents, with scores and domain filters.

Request: ``query``, ``max_results``, ``search_depth`` basic, optional ``time_range`` (day/week/month/year) and
``include_domains``. Response: ``{"results": [{"title", "url", "content", "score", "published_date"?}]}``.
Tavily has no safe-search switch, so that setting does not apply here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tools.web.backends.http import request_json, results_list
from tools.web.search_types import SearchHit, SearchQuery, hit_from


@dataclass
class TavilyBackend:
    base_url: str
    timeout: float
    id: Literal["tavily"] = "tavily"
    label: str = "Tavily"
    key_required: bool = True

    async def search(self, query: SearchQuery, key: str | None) -> list[SearchHit]:
        body: dict[str, Any] = {"query": query.text, "max_results": query.count, "search_depth": "basic",
                                "topic": "general"}
        if query.time_range:
            body["time_range"] = query.time_range
        if query.domains:
            body["include_domains"] = list(query.domains)
        data = await request_json(self.id, self.label, "POST", f"{self.base_url}/search", time_limit=self.timeout,
                                  headers={"Authorization": f"Bearer {key}"}, json_body=body)
        hits = (hit_from(self.id, title=item.get("title"), url=item.get("url"), snippet=item.get("content"),
                         published=item.get("published_date"), score=item.get("score"))
                for item in results_list(self.label, data, "results"))
        return [hit for hit in hits if hit is not None][: query.count]
