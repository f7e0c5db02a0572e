"""Each HTTP search backend against a loopback server speaking the service's documented shapes and statuses."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest

from tests.support import search_wire
from tests.support.loopback import LoopbackServer, Request, Response
from tools.web.backends import BraveBackend, ExaBackend, SearxngBackend, TavilyBackend
from tools.web.search_types import SearchBackend, SearchError, SearchQuery

KEY = "test-key-not-real"
FIXED_NOW = datetime(2025, 1, 31, 12, 0, tzinfo=UTC)


@dataclass
class Case:
    name: str
    method: str
    path: str
    make: Callable[[str, float], SearchBackend]
    success: Callable[[], dict[str, Any]]
    error_body: Callable[[int], dict[str, Any] | str]


def _brave_error(status: int) -> dict[str, Any]:
    codes = {400: "VALIDATION", 401: "SUBSCRIPTION_TOKEN_INVALID", 403: "OPTION_NOT_IN_PLAN", 429: "RATE_LIMITED"}
    return search_wire.brave_error(status, codes.get(status, "INTERNAL_ERROR"), f"brave says {status}")


CASES = [
    Case("tavily", "POST", "/search", lambda url, t: TavilyBackend(url, t), search_wire.tavily_results,
         lambda status: search_wire.tavily_error(f"tavily says {status}")),
    Case("brave", "GET", "/res/v1/web/search", lambda url, t: BraveBackend(url, t), search_wire.brave_results,
         _brave_error),
    Case("exa", "POST", "/search", lambda url, t: ExaBackend(url, t, now=lambda: FIXED_NOW),
         search_wire.exa_results, lambda status: search_wire.exa_error(f"exa says {status}", "ERROR")),
    Case("searxng", "GET", "/search", lambda url, t: SearxngBackend(url, t), search_wire.searxng_results,
         lambda status: f"<html><body><h1>{status}</h1></body></html>"),
]
LABELS = {"tavily": "Tavily", "brave": "Brave Search", "exa": "Exa", "searxng": "SearXNG"}


def query(**changes: Any) -> SearchQuery:
    values: dict[str, Any] = {"text": "sea otters", "count": 5}
    values.update(changes)
    return SearchQuery(**values)


@pytest.fixture(params=CASES, ids=[c.name for c in CASES])
def case(request: pytest.FixtureRequest) -> Case:
    return request.param


# --- success: the documented shape becomes normalized hits --------------------------------------------------


async def test_documented_results_are_normalized(case: Case, loopback: LoopbackServer) -> None:
    loopback.add(case.method, case.path, Response.json(case.success()))
    hits = await case.make(loopback.url, 5).search(query(), KEY)
    assert [h.url for h in hits][:2] == [search_wire.OTTER_URL, search_wire.TOOLS_URL]
    assert all(h.backend == case.name for h in hits)
    assert hits[0].title == "Sea otter - Wikipedia"
    assert "marine mammal" in hits[0].snippet
    assert "<strong>" not in hits[0].snippet and "&amp;" not in hits[0].snippet
    assert hits[1].snippet.startswith("Sea otters crack shells with")
    assert loopback.count == 1


async def test_result_count_trims_a_longer_answer(case: Case, loopback: LoopbackServer) -> None:
    loopback.add(case.method, case.path, Response.json(case.success()))
    hits = await case.make(loopback.url, 5).search(query(count=1), KEY)
    assert len(hits) == 1


def _sent(request: Request) -> dict[str, Any]:
    """Parameters of a request, from the query string (GET) or the JSON body (POST)."""
    if request.method == "GET":
        return {k: v[0] for k, v in request.query.items()}
    return request.json


async def test_tavily_request(loopback: LoopbackServer) -> None:
    loopback.add("POST", "/search", Response.json(search_wire.tavily_results()))
    hits = await TavilyBackend(loopback.url, 5).search(
        query(count=3, time_range="week", domains=("wikipedia.org",)), KEY)
    request = loopback.requests[0]
    assert request.header("authorization") == f"Bearer {KEY}"
    assert request.json == {"query": "sea otters", "max_results": 3, "search_depth": "basic", "topic": "general",
                            "time_range": "week", "include_domains": ["wikipedia.org"]}
    assert (hits[0].score, hits[1].published) == (0.98, "Tue, 04 Jun 2024 10:00:00 GMT")


async def test_brave_request(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/res/v1/web/search", Response.json(search_wire.brave_results()))
    hits = await BraveBackend(loopback.url, 5).search(
        query(count=7, time_range="month", domains=("a.org", "b.org"), safe_search="strict"), KEY)
    request = loopback.requests[0]
    assert request.header("x-subscription-token") == KEY
    assert request.header("accept") == "application/json"
    assert _sent(request) == {"q": "sea otters (site:a.org OR site:b.org)", "count": "7", "safesearch": "strict",
                              "freshness": "pm"}
    assert (hits[0].published, hits[1].published) == ("2024-05-01T12:00:00", "2 days ago")
    assert hits[0].snippet == "The sea otter is a marine mammal & a keystone species."


async def test_brave_without_web_results_is_empty(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/res/v1/web/search", Response.json({"type": "search", "query": {"original": "zzz"}}))
    assert await BraveBackend(loopback.url, 5).search(query(text="zzz"), KEY) == []


async def test_exa_request(loopback: LoopbackServer) -> None:
    loopback.add("POST", "/search", Response.json(search_wire.exa_results()))
    hits = await ExaBackend(loopback.url, 5, now=lambda: FIXED_NOW).search(
        query(count=2, time_range="day", domains=("wikipedia.org",)), KEY)
    request = loopback.requests[0]
    assert request.header("x-api-key") == KEY
    body = request.json
    assert (body["query"], body["numResults"], body["includeDomains"]) == ("sea otters", 2, ["wikipedia.org"])
    assert body["startPublishedDate"] == "2025-01-30T12:00:00.000Z"
    assert body["contents"]["text"]["maxCharacters"] > 0
    assert (hits[0].published, hits[0].score, hits[1].published) == ("2024-03-01T00:00:00.000Z", 0.41, None)


async def test_searxng_request(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/search", Response.json(search_wire.searxng_results()))
    hits = await SearxngBackend(loopback.url, 5).search(query(time_range="year", domains=("a.org",),
                                                              safe_search="off"), None)
    request = loopback.requests[0]
    assert request.header("authorization") is None
    assert _sent(request) == {"q": "sea otters site:a.org", "format": "json", "pageno": "1", "safesearch": "0",
                              "time_range": "year"}
    assert [h.score for h in hits] == [4.0, 0.33, 0.2]
    assert hits[1].published == "2024-06-04T10:00:00"


async def test_searxng_sends_an_optional_key_as_bearer_token(loopback: LoopbackServer) -> None:
    loopback.add("GET", "/search", Response.json(search_wire.searxng_results()))
    await SearxngBackend(loopback.url, 5).search(query(), KEY)
    assert loopback.requests[0].header("authorization") == f"Bearer {KEY}"


async def test_searxng_needs_its_address() -> None:
    with pytest.raises(SearchError) as caught:
        await SearxngBackend(None, 5).search(query(), None)
    assert caught.value.kind == "not_configured"
    assert "Preferences > Search" in caught.value.message


# --- failures: one typed message per status class, naming the service ---------------------------------------


@pytest.mark.parametrize(("status", "kind", "phrase"), [
    (400, "bad_request", "Change the arguments"),
    (422, "bad_request", "Change the arguments"),
    (401, "auth", "Check the key"),
    (403, "auth", "Check the key"),
    (429, "quota", "Do not repeat this search now"),
    (500, "server", "Try again later"),
    (503, "server", "Try again later"),
    (404, "bad_response", "address in Preferences > Search"),
])
async def test_error_statuses(case: Case, loopback: LoopbackServer, status: int, kind: str, phrase: str) -> None:
    body = case.error_body(status)
    response = Response.json(body, status=status) if isinstance(body, dict) else Response.body(
        body, "text/html", status=status)
    loopback.always(case.method, case.path, response)
    with pytest.raises(SearchError) as caught:
        await case.make(loopback.url, 5).search(query(), KEY)
    error = caught.value
    label = LABELS[case.name]
    assert label in error.message and f"HTTP {status}" in error.message
    if case.name == "searxng" and status == 403:
        assert error.kind == "not_configured" and "search.formats" in error.message
    else:
        assert error.kind == kind and phrase in error.message
    if isinstance(body, dict):
        assert f"says {status}" in error.message  # the service's own reason is quoted
    if kind == "auth" and case.name != "searxng":
        assert f"`parley keys set search:{case.name}`" in error.message
    assert loopback.count == 1  # one attempt: no retries, least of all on 429


async def test_429_reports_retry_after_and_is_not_retried(case: Case, loopback: LoopbackServer) -> None:
    body = case.error_body(429)
    loopback.always(case.method, case.path, Response.body(json.dumps(body) if isinstance(body, dict) else body,
                                                          "application/json", status=429,
                                                          headers={"Retry-After": "7"}))
    with pytest.raises(SearchError) as caught:
        await case.make(loopback.url, 5).search(query(), KEY)
    assert caught.value.kind == "quota" and "wait 7 s" in caught.value.message
    assert loopback.count == 1


async def test_tavily_plan_limit_is_a_quota_error(loopback: LoopbackServer) -> None:
    loopback.add("POST", "/search", Response.json(search_wire.tavily_error("plan limit exceeded"), status=432))
    with pytest.raises(SearchError) as caught:
        await TavilyBackend(loopback.url, 5).search(query(), KEY)
    assert caught.value.kind == "quota" and "plan limit exceeded" in caught.value.message


async def test_answer_that_is_not_json(case: Case, loopback: LoopbackServer) -> None:
    loopback.add(case.method, case.path, Response.body("<html>login page</html>", "text/html"))
    with pytest.raises(SearchError) as caught:
        await case.make(loopback.url, 5).search(query(), KEY)
    assert caught.value.kind == "bad_response" and LABELS[case.name] in caught.value.message


async def test_answer_in_an_unexpected_shape(case: Case, loopback: LoopbackServer) -> None:
    loopback.add(case.method, case.path, Response.json({"results": "none", "web": {"results": "none"}}))
    with pytest.raises(SearchError) as caught:
        await case.make(loopback.url, 5).search(query(), KEY)
    assert caught.value.kind == "bad_response"


async def test_timeout_names_the_service(case: Case, loopback: LoopbackServer) -> None:
    loopback.add(case.method, case.path, Response(hang_before_headers=True))
    with pytest.raises(SearchError) as caught:
        await case.make(loopback.url, 0.3).search(query(), KEY)
    assert caught.value.kind == "timeout"
    assert f"{LABELS[case.name]} did not answer within 0.3 s" in caught.value.message


async def test_unreachable_service_is_a_network_error(case: Case) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(SearchError) as caught:
        await case.make(f"http://127.0.0.1:{port}", 2).search(query(), KEY)
    assert caught.value.kind == "network"
    assert f"Could not reach {LABELS[case.name]} at 127.0.0.1:{port}" in caught.value.message


async def test_answer_nested_too_deep_is_a_bad_response(case: Case, loopback: LoopbackServer) -> None:
    loopback.add(case.method, case.path, Response.body("[" * 1_100 + "]" * 1_100, "application/json"))
    with pytest.raises(SearchError) as caught:
        await case.make(loopback.url, 5).search(query(), KEY)
    assert caught.value.kind == "bad_response" and LABELS[case.name] in caught.value.message
    assert "nested more than 100 levels deep" in caught.value.message


async def test_error_body_nested_too_deep_keeps_the_status(case: Case, loopback: LoopbackServer) -> None:
    loopback.add(case.method, case.path, Response.body("[" * 1_100 + "]" * 1_100, "application/json", status=400))
    with pytest.raises(SearchError) as caught:
        await case.make(loopback.url, 5).search(query(), KEY)
    assert LABELS[case.name] in caught.value.message
