"""``web_search``: one search through the configured backend, as compact text for the model and as data for
the search-results pane.

The tool validates the arguments (a non-empty query, a count within the backend's cap, a time range, domain
names), looks the backend's key up in the keyring (``search:<backend id>``), and turns every failure into an
error result that names the service and says who can fix it. Identical searches within one run (query compared
without case and extra spaces, same filters) go to the service once: concurrent ones share the running request
and later ones reuse the answer for ``SEARCH_REUSE_SECONDS``. Network failures and timeouts are not reused, so a
later identical search can try again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from orchestration.tool_api import ToolContext, ToolOutput
from tools.arguments import ToolArguments
from tools.registry import Tool
from tools.web.backends import backend_for, key_entry
from tools.web.backends.http import key_hint
from tools.web.cache import TTLCache
from tools.web.search_types import SearchBackend, SearchError, SearchHit, SearchQuery, TimeRange
from tools.web.settings import MAX_RESULT_COUNT, SearchSettings

if TYPE_CHECKING:
    import asyncio

NAME = "web_search"
MAX_QUERY_CHARS = 400  # Tavily's advice for its queries; longer texts are not search queries
MAX_DOMAINS = 10
SEARCH_REUSE_SECONDS = 300.0  # how long an identical search in the same run reuses the answer
SEARCH_REUSE_ENTRIES = 128
UNCACHED_KINDS = frozenset({"network", "timeout"})  # transient: a later identical search may try again

SecretLookup = Callable[[str], str | None]

_DOMAIN = re.compile(r"^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$")


def _domain(text: str) -> str:
    """'https://Docs.Python.org/3/' -> 'docs.python.org'; PydanticCustomError when it is no domain name."""
    value = text.strip().lower()
    value = re.sub(r"^[a-z][a-z0-9+.-]*://", "", value).split("/", 1)[0].removeprefix("www.")
    if not _DOMAIN.match(value):
        raise PydanticCustomError("domain", "'{text}' is not a domain name such as 'python.org'", {"text": text})
    return value


class WebSearchArguments(ToolArguments):
    query: str = Field(max_length=MAX_QUERY_CHARS, description="What to search for, as you would type it into a "
                       "search engine.")
    count: int | None = Field(None, ge=1, le=MAX_RESULT_COUNT, description="How many results (default from the "
                              "user's settings).")
    time_range: TimeRange | None = Field(None, description="Only results from the last day, week, month or year.")
    domains: list[str] | None = Field(None, max_length=MAX_DOMAINS, description="Only results from these sites, "
                                      "e.g. ['python.org'].")

    @field_validator("query")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise PydanticCustomError("empty_query", "web_search needs a non-empty query")
        return value

    @field_validator("domains")
    @classmethod
    def _domains(cls, value: list[str] | None) -> list[str] | None:
        if not value:
            return None
        return list(dict.fromkeys(_domain(item) for item in value))


def format_hits(label: str, query: str, hits: list[SearchHit]) -> str:
    """The model's view: numbered results, each with its URL and snippet."""
    if not hits:
        return f"{label} found no results for {query!r}. Try other words or fewer filters."
    plural = "" if len(hits) == 1 else "s"
    lines = [f"{label}: {len(hits)} result{plural} for {query!r}"]
    for number, hit in enumerate(hits, start=1):
        lines.append(f"{number}. {hit.title}")
        lines.append(f"   {hit.url}")
        detail = f"({hit.published}) {hit.snippet}" if hit.published else hit.snippet
        if detail.strip():
            lines.append(f"   {detail.strip()}")
    return "\n".join(lines)


class WebSearch:
    """The handler behind the ``web_search`` tool, holding the backend and the per-run reuse of answers."""

    def __init__(self, settings: SearchSettings, secret_lookup: SecretLookup,
                 backend: SearchBackend | None = None) -> None:
        self.settings = settings
        self.secret_lookup = secret_lookup
        self.backend = backend or backend_for(settings)
        self._answers: TTLCache[asyncio.Task[tuple[ToolOutput, bool]]] = TTLCache(
            SEARCH_REUSE_SECONDS, SEARCH_REUSE_ENTRIES)

    def _data(self, query: str, hits: list[SearchHit], error: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": "search", "backend": self.backend.id, "query": query,
                                "results": [hit.as_dict() for hit in hits]}
        if error is not None:
            data["error"] = error
        return data

    def _failure(self, query: str, message: str) -> ToolOutput:
        return ToolOutput(text=message, data=self._data(query, [], message), is_error=True)

    def _key(self) -> tuple[str | None, ToolOutput | None]:
        """The backend's key, or the result telling the model and the user where to add it."""
        backend = self.backend
        entry = key_entry(backend.id)
        try:
            key = self.secret_lookup(entry)
        except Exception as exc:  # the keyring is the environment: locked, missing, or broken
            return None, ToolOutput(text=f"Could not read the {backend.label} key from the keyring (entry {entry}): "
                                    f"{type(exc).__name__}: {exc}. Unlock or repair the keyring, or pick another "
                                    "search backend in Preferences > Search.", is_error=True)
        if backend.key_required and not key:
            return None, ToolOutput(text=f"web_search cannot use {backend.label}: no API key is stored. "
                                    + key_hint(backend.id, backend.label), is_error=True)
        return key or None, None

    async def _search(self, query: SearchQuery) -> tuple[ToolOutput, bool]:
        key, problem = self._key()
        if problem is not None:
            return problem.model_copy(update={"data": self._data(query.text, [], problem.text)}), True
        try:
            hits = await self.backend.search(query, key)
        except SearchError as exc:
            return self._failure(query.text, exc.message), exc.kind not in UNCACHED_KINDS
        hits = hits[: query.count]
        return ToolOutput(text=format_hits(self.backend.label, query.text, hits),
                          data=self._data(query.text, hits)), True

    async def __call__(self, arguments: WebSearchArguments, context: ToolContext) -> ToolOutput:
        import asyncio  # loaded with the run's event loop, not when the tools are built or listed

        query = SearchQuery(text=arguments.query, count=arguments.count or self.settings.result_count,
                            time_range=arguments.time_range, domains=tuple(arguments.domains or ()),
                            safe_search=self.settings.safe_search)
        reuse_key = (context.run_id, self.backend.id, query.text.casefold(), query.count, query.time_range,
                     tuple(sorted(query.domains)))
        task = self._answers.get(reuse_key)
        if task is None or not _reusable(task):
            # The request runs in its own task so that a caller stopped by its timeout does not cancel the
            # request another identical call is waiting for.
            task = asyncio.ensure_future(self._search(query))
            self._answers.put(reuse_key, task)
        output, _ = await asyncio.shield(task)
        return output


def _reusable(task: asyncio.Task[tuple[ToolOutput, bool]]) -> bool:
    """A running search, or a finished one whose answer may be reused."""
    if not task.done():
        return True
    return not task.cancelled() and task.exception() is None and task.result()[1]


def web_search_tool(settings: SearchSettings, secret_lookup: SecretLookup,
                    backend: SearchBackend | None = None) -> Tool:
    search = WebSearch(settings, secret_lookup, backend)
    label = search.backend.label
    return Tool(
        name=NAME,
        description=f"Search the web ({label}). Returns numbered results with title, URL and a snippet; read a "
        "page in full with web_fetch. Use for current events and facts you are unsure of; cite the URLs you use.",
        arguments=WebSearchArguments,
        handler=search.__call__,
        category="search",
        visibility="primary",
        parallel_safe=True,
        needs_approval=False,
        timeout=settings.timeout + 5,
    )
