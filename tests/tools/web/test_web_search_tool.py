"""The ``web_search`` tool: argument checks, keys from the keyring, result text and data, reuse within a run."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from orchestration.tool_api import ToolArgumentsError, ToolContext, ToolOutput
from tests.support import search_wire
from tests.support.loopback import Chunk, LoopbackServer, Response
from tools.registry import Tool
from tools.web.search import WebSearch, WebSearchArguments, format_hits, web_search_tool
from tools.web.search_types import SearchError, SearchHit, SearchQuery
from tools.web.settings import SearchSettings

KEY = "test-key-not-real"
BRAVE_PATH = "/res/v1/web/search"


def brave_settings(server: LoopbackServer, **changes: Any) -> SearchSettings:
    return SearchSettings(backend="brave", brave_base_url=server.url, **changes)


def keyring(**entries: str) -> Any:
    looked_up: list[str] = []

    def lookup(entry: str) -> str | None:
        looked_up.append(entry)
        return entries.get(entry.replace("search:", ""))

    lookup.looked_up = looked_up  # type: ignore[attr-defined]
    return lookup


def ctx(run_id: str = "run-1", call_id: str = "call-1") -> ToolContext:
    return ToolContext(run_id=run_id, call_id=call_id)


async def call(tool: Tool, arguments: dict[str, Any], context: ToolContext | None = None) -> ToolOutput:
    output = await tool.invoke(tool.validate(arguments), context or ctx())
    assert isinstance(output, ToolOutput)
    return output


# --- arguments ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("arguments", "message"), [
    ({"query": "   "}, "web_search needs a non-empty query"),
    ({}, "query: Field required"),
    ({"query": "x", "count": 0}, "count"),
    ({"query": "x", "count": 21}, "count"),
    ({"query": "x", "time_range": "decade"}, "time_range"),
    ({"query": "x", "domains": ["not a domain"]}, "'not a domain' is not a domain name such as 'python.org'"),
    ({"query": "x" * 401}, "at most 400 characters"),
])
def test_invalid_arguments_say_what_to_fix(arguments: dict[str, Any], message: str) -> None:
    tool = web_search_tool(SearchSettings(), keyring())
    with pytest.raises(ToolArgumentsError) as caught:
        tool.validate(arguments)
    assert message in str(caught.value)


def test_arguments_are_normalized() -> None:
    args = WebSearchArguments.model_validate({"query": "  sea   otters ", "domains": [
        "https://www.Python.org/downloads/", "python.org", "docs.python.org"]})
    assert args.query == "sea otters"
    assert args.domains == ["python.org", "docs.python.org"]


def test_tool_metadata() -> None:
    tool = web_search_tool(SearchSettings(), keyring())
    assert (tool.name, tool.category, tool.visibility, tool.parallel_safe, tool.needs_approval) == (
        "web_search", "search", "primary", True, False)
    assert "DuckDuckGo" in tool.description
    assert set(tool.spec().parameters["properties"]) == {"query", "count", "time_range", "domains"}


# --- keys --------------------------------------------------------------------------------------------------


async def test_missing_key_says_where_to_add_it(loopback: LoopbackServer) -> None:
    lookup = keyring()
    output = await call(web_search_tool(brave_settings(loopback), lookup), {"query": "otters"})
    assert output.is_error
    assert ("Add a Brave Search key in Preferences > Search or with `parley keys set search:brave`."
            in output.text)
    assert output.data["error"] == output.text and output.data["results"] == []
    assert lookup.looked_up == ["search:brave"]
    assert loopback.count == 0


async def test_keyring_failure_is_reported(loopback: LoopbackServer) -> None:
    def broken(entry: str) -> str | None:
        raise RuntimeError("the keyring is locked")

    output = await call(web_search_tool(brave_settings(loopback), broken), {"query": "otters"})
    assert output.is_error
    assert "Could not read the Brave Search key from the keyring (entry search:brave)" in output.text
    assert "the keyring is locked" in output.text
    assert loopback.count == 0


async def test_key_from_the_keyring_reaches_the_service(loopback: LoopbackServer) -> None:
    loopback.add("GET", BRAVE_PATH, Response.json(search_wire.brave_results()))
    output = await call(web_search_tool(brave_settings(loopback), keyring(brave=KEY)), {"query": "otters"})
    assert not output.is_error
    assert loopback.requests[0].header("x-subscription-token") == KEY


# --- results -----------------------------------------------------------------------------------------------


async def test_results_are_text_for_the_model_and_data_for_the_pane(loopback: LoopbackServer) -> None:
    loopback.add("GET", BRAVE_PATH, Response.json(search_wire.brave_results()))
    tool = web_search_tool(brave_settings(loopback, result_count=4), keyring(brave=KEY))
    output = await call(tool, {"query": "sea otters", "time_range": "week"})
    assert output.text.splitlines() == [
        "Brave Search: 2 results for 'sea otters'",
        "1. Sea otter - Wikipedia",
        f"   {search_wire.OTTER_URL}",
        "   (2024-05-01T12:00:00) The sea otter is a marine mammal & a keystone species.",
        "2. Otters use tools",
        f"   {search_wire.TOOLS_URL}",
        "   (2 days ago) Sea otters crack shells with stones.",
    ]
    assert output.data == {"kind": "search", "backend": "brave", "query": "sea otters", "results": [
        {"title": "Sea otter - Wikipedia", "url": search_wire.OTTER_URL,
         "snippet": "The sea otter is a marine mammal & a keystone species.", "backend": "brave",
         "published": "2024-05-01T12:00:00", "score": None},
        {"title": "Otters use tools", "url": search_wire.TOOLS_URL, "snippet": "Sea otters crack shells with stones.",
         "backend": "brave", "published": "2 days ago", "score": None},
    ]}
    sent = loopback.requests[0].query
    assert (sent["count"], sent["freshness"], sent["safesearch"]) == (["4"], ["pw"], ["moderate"])


async def test_no_results_is_not_an_error(loopback: LoopbackServer) -> None:
    loopback.add("GET", BRAVE_PATH, Response.json({"type": "search"}))
    output = await call(web_search_tool(brave_settings(loopback), keyring(brave=KEY)), {"query": "zzqx"})
    assert not output.is_error
    assert output.text == "Brave Search found no results for 'zzqx'. Try other words or fewer filters."
    assert output.data["results"] == []


async def test_service_error_is_an_error_result_with_data(loopback: LoopbackServer) -> None:
    loopback.add("GET", BRAVE_PATH, Response.json(search_wire.brave_error(401, "SUBSCRIPTION_TOKEN_INVALID",
                                                                          "bad token"), status=401))
    output = await call(web_search_tool(brave_settings(loopback), keyring(brave=KEY)), {"query": "otters"})
    assert output.is_error and "Brave Search refused the API key (HTTP 401): bad token" in output.text
    assert output.data == {"kind": "search", "backend": "brave", "query": "otters", "results": [],
                           "error": output.text}


def test_format_hits_without_snippet_or_date() -> None:
    hits = [SearchHit(title="T", url="https://t.example/", snippet="", backend="exa")]
    assert format_hits("Exa", "q", hits) == "Exa: 1 result for 'q'\n1. T\n   https://t.example/"


async def test_searxng_without_address_says_where_to_set_it() -> None:
    output = await call(web_search_tool(SearchSettings(backend="searxng"), keyring()), {"query": "otters"})
    assert output.is_error and "SearXNG needs the address of your instance" in output.text


# --- identical searches in a run ----------------------------------------------------------------------------


async def test_identical_searches_in_a_run_reach_the_service_once(loopback: LoopbackServer) -> None:
    loopback.always("GET", BRAVE_PATH, Response.json(search_wire.brave_results()))
    tool = web_search_tool(brave_settings(loopback), keyring(brave=KEY))
    first = await call(tool, {"query": "Sea Otters", "domains": ["b.org", "a.org"]})
    again = await call(tool, {"query": "  sea   otters", "domains": ["a.org", "b.org"]}, ctx(call_id="call-2"))
    assert again == first and loopback.count == 1
    await call(tool, {"query": "sea otters", "domains": ["a.org"]})  # other filters: a new search
    await call(tool, {"query": "sea otters", "domains": ["a.org", "b.org"]}, ctx(run_id="run-2"))  # another run
    assert loopback.count == 3


async def test_concurrent_identical_searches_share_one_request(loopback: LoopbackServer) -> None:
    slow = Response.json(search_wire.brave_results())
    slow.chunks = [Chunk(c if isinstance(c, bytes) else c.data, delay=0.2) for c in slow.chunks]
    loopback.always("GET", BRAVE_PATH, slow)
    tool = web_search_tool(brave_settings(loopback), keyring(brave=KEY))
    outputs = await asyncio.gather(call(tool, {"query": "otters"}), call(tool, {"query": "OTTERS"}))
    assert outputs[0] == outputs[1] and not outputs[0].is_error
    assert loopback.count == 1


class FlakyBackend:
    """A backend that fails with ``kind`` once, then answers; counts its calls."""

    id = "exa"
    label = "Exa"
    key_required = False

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.calls = 0

    async def search(self, query: SearchQuery, key: str | None) -> list[SearchHit]:
        self.calls += 1
        if self.calls == 1:
            raise SearchError(self.kind, f"Exa failed ({self.kind})")  # type: ignore[arg-type]
        return [SearchHit(title="T", url="https://t.example/", snippet="s", backend="exa")]


@pytest.mark.parametrize(("kind", "calls_after_retry"), [("network", 2), ("timeout", 2), ("quota", 1),
                                                         ("auth", 1)])
async def test_only_transient_failures_are_tried_again(kind: str, calls_after_retry: int) -> None:
    backend = FlakyBackend(kind)
    search = WebSearch(SearchSettings(), keyring(), backend=backend)  # type: ignore[arg-type]
    arguments = WebSearchArguments(query="otters")
    first = await search(arguments, ctx())
    second = await search(arguments, ctx())
    assert first.is_error and first.text == f"Exa failed ({kind})"
    assert backend.calls == calls_after_retry
    assert second.is_error == (calls_after_retry == 1)


async def test_default_backend_needs_no_key() -> None:
    class Rows:
        def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
            return [{"title": "Otter", "href": "https://otter.example/", "body": "An otter."}]

    from tools.web.backends import DuckDuckGoBackend

    lookup = keyring()
    settings = SearchSettings()
    backend = DuckDuckGoBackend(settings.timeout, client_factory=lambda timeout: Rows())
    tool = web_search_tool(settings, lookup, backend=backend)
    output = await call(tool, {"query": "otter"})
    assert not output.is_error and output.data["backend"] == "duckduckgo"
    assert output.data["results"][0]["url"] == "https://otter.example/"
