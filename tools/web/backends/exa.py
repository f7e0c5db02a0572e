"""Exa (``POST /search``, ``x-api-key``): a neural search engine with date and domain filters.

Request: ``query``, ``numResults``, ``type`` auto, ``includeDomains``, ``startPublishedDate`` (ISO 8601, computed
from the time range), and ``contents.text.maxCharacters`` so each hit carries a snippet. Response:
``{"results": [{"title", "url", "publishedDate", "score"?, "text"?, "highlights"?}]}``. Exa has no safe-search
switch, so that setting does not apply here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from tools.web.backends.http import request_json, results_list
from tools.web.search_types import SNIPPET_CHARS, SearchHit, SearchQuery, hit_from

PERIODS = {"day": timedelta(days=1), "week": timedelta(weeks=1), "month": timedelta(days=31),
           "year": timedelta(days=366)}


def _snippet(item: dict[str, Any]) -> Any:
    highlights = item.get("highlights")
    if isinstance(highlights, list) and highlights and isinstance(highlights[0], str):
        return highlights[0]
    return item.get("summary") or item.get("text")


@dataclass
class ExaBackend:
    base_url: str
    timeout: float
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    id: Literal["exa"] = "exa"
    label: str = "Exa"
    key_required: bool = True

    async def search(self, query: SearchQuery, key: str | None) -> list[SearchHit]:
        body: dict[str, Any] = {"query": query.text, "numResults": query.count, "type": "auto",
                                "contents": {"text": {"maxCharacters": SNIPPET_CHARS * 2}}}
        if query.domains:
            body["includeDomains"] = list(query.domains)
        if query.time_range:
            since = self.now() - PERIODS[query.time_range]
            body["startPublishedDate"] = since.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        data = await request_json(self.id, self.label, "POST", f"{self.base_url}/search", time_limit=self.timeout,
                                  headers={"x-api-key": key or ""}, json_body=body)
        hits = (hit_from(self.id, title=item.get("title"), url=item.get("url"), snippet=_snippet(item),
                         published=item.get("publishedDate"), score=item.get("score"))
                for item in results_list(self.label, data, "results"))
        return [hit for hit in hits if hit is not None][: query.count]
