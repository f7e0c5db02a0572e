"""What the search-results pane knows about one run's web results, without any Qt.

The web tools attach structured data to their ``tool_result`` events: ``{"kind": "search", "backend", "query",
"results": [{title, url, snippet, backend, published, score}]}`` for a search and ``{"kind": "fetch", "url",
"title", "truncated"}`` for a page the model read. ``SearchResults`` folds those into one list of entries,
de-duplicated by host and path, with pages the model read marked apart from results it only found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

MAX_ENTRIES_PER_RUN = 100
"""Entries kept per run; results beyond this are counted in ``dropped`` and not shown."""
SNIPPET_DISPLAY_CHARS = 280
"""Snippets are cut to this many characters (with an ellipsis) for display."""
TITLE_DISPLAY_CHARS = 160
OPENABLE_SCHEMES = frozenset({"http", "https"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_SPACES = re.compile(r"\s+")


def url_key(url: str) -> str:
    """The de-duplication key of a URL: lowercase host (and a non-default port) plus the path.

    No scheme, query, fragment or trailing slash: ``https://Example.org/a/#x`` and ``http://example.org/a`` are
    the same entry. A URL without a host keys on its text without the fragment.
    """
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
        port = parts.port
    except ValueError:  # an invalid port or bracketed host: compare such URLs as text
        return url.strip().split("#", 1)[0].rstrip("/")
    if not host:
        return url.strip().split("#", 1)[0].rstrip("/")
    if port is not None and port != _DEFAULT_PORTS.get(parts.scheme.lower()):
        host = f"{host}:{port}"
    return host + parts.path.rstrip("/")


def url_host(url: str) -> str:
    """The host to show for a URL (lowercase, without ``www.``), or "" when it has none."""
    try:
        host = urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""
    return host.removeprefix("www.")


def is_openable(url: str) -> bool:
    """Only web pages are opened in the system browser; other schemes (file:, javascript:, ...) never are."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    return parts.scheme.lower() in OPENABLE_SCHEMES and bool(parts.hostname)


def _clean(text: Any, limit: int) -> str:
    if not isinstance(text, str):
        return ""
    flat = _SPACES.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


@dataclass
class ResultEntry:
    """One page in the pane: found by a search, read by the model, or both."""

    key: str
    url: str
    title: str
    host: str
    snippet: str = ""
    found: bool = False
    read: bool = False
    truncated: bool = False
    published: str = ""
    queries: list[str] = field(default_factory=list)


class SearchResults:
    """The entries of one run, in arrival order; each update says which entries it added or changed."""

    def __init__(self) -> None:
        self._entries: dict[str, ResultEntry] = {}
        self.queries: list[str] = []
        self._hits_per_query: dict[str, int] = {}
        self.dropped = 0

    def searches(self) -> list[tuple[str, int]]:
        """Each query searched this run, in order, with how many results its search returned.

        A query searched again (the same words) is one search; its count is the larger of the two.
        """
        return [(query, self._hits_per_query[query]) for query in self.queries]

    def entries(self) -> list[ResultEntry]:
        return list(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()
        self.queries.clear()
        self._hits_per_query.clear()
        self.dropped = 0

    def add_tool_data(self, data: Any) -> list[ResultEntry]:
        """Fold one tool result's ``data`` in; returns the entries added or changed (none for other data)."""
        if not isinstance(data, dict):
            return []
        if data.get("kind") == "search":
            return self._add_search(data)
        if data.get("kind") == "fetch":
            changed = self._add_fetch(data)
            return [changed] if changed is not None else []
        return []

    def _add_search(self, data: dict[str, Any]) -> list[ResultEntry]:
        query = data.get("query")
        results = data.get("results")
        hits = [hit for hit in (results if isinstance(results, list) else [])
                if isinstance(hit, dict) and isinstance(hit.get("url"), str) and hit["url"].strip()]
        if isinstance(query, str) and query.strip():
            if query.strip() not in self.queries:
                self.queries.append(query.strip())
            self._hits_per_query[query.strip()] = max(len(hits), self._hits_per_query.get(query.strip(), 0))
        changed: list[ResultEntry] = []
        for hit in hits:
            entry = self._entry_for(hit["url"], hit.get("title"))
            if entry is None:
                continue
            newly_found = not entry.found
            entry.found = True
            if not entry.snippet:
                entry.snippet = _clean(hit.get("snippet"), SNIPPET_DISPLAY_CHARS)
            if not entry.published and isinstance(hit.get("published"), str):
                entry.published = hit["published"].strip()
            if isinstance(query, str) and query.strip() and query.strip() not in entry.queries:
                entry.queries.append(query.strip())
            if newly_found and entry not in changed:
                changed.append(entry)
        return changed

    def _add_fetch(self, data: dict[str, Any]) -> ResultEntry | None:
        url = data.get("url")
        if not isinstance(url, str) or not url.strip():
            return None
        entry = self._entry_for(url, data.get("title"))
        if entry is None:
            return None
        entry.read = True
        entry.truncated = bool(data.get("truncated"))
        return entry

    def _entry_for(self, url: str, title: Any) -> ResultEntry | None:
        """The entry of ``url``, created if new; None when the run already holds the most entries kept."""
        key = url_key(url)
        entry = self._entries.get(key)
        if entry is not None:
            if not entry.title or entry.title == entry.url:
                entry.title = _clean(title, TITLE_DISPLAY_CHARS) or entry.title
            return entry
        if len(self._entries) >= MAX_ENTRIES_PER_RUN:
            self.dropped += 1
            return None
        url = url.strip()
        entry = ResultEntry(key=key, url=url, title=_clean(title, TITLE_DISPLAY_CHARS) or url, host=url_host(url))
        self._entries[key] = entry
        return entry
