"""The DuckDuckGo backend at the ``ddgs`` library boundary.

The tests have no network, and ``ddgs`` scrapes DuckDuckGo's pages over its own HTTP stack (no base URL to
point at a loopback server), so a small fake with ``DDGS.text``'s signature stands in for the library. It
checks the arguments the adapter passes and how the library's rows and exceptions are mapped; the exception
classes are the library's own.
"""

from __future__ import annotations

from typing import Any

import pytest
from ddgs.exceptions import DDGSException, RatelimitException, TimeoutException

from tools.web.backends import DuckDuckGoBackend
from tools.web.search_types import SearchError, SearchQuery

ROWS = [
    {"title": "Sea otter - Wikipedia", "href": "https://en.wikipedia.org/wiki/Sea_otter",
     "body": "The sea otter is a marine mammal."},
    {"title": "No link", "href": "", "body": "dropped: no URL"},
    {"title": "Otters use tools", "href": "https://news.example.org/otters", "body": "Stones &amp; shells."},
]


class FakeDDGS:
    """Records how it was built and called; answers with rows or raises what it was given."""

    def __init__(self, answer: list[dict[str, Any]] | Exception) -> None:
        self.answer = answer
        self.timeouts: list[int] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, timeout: int) -> FakeDDGS:
        self.timeouts.append(timeout)
        return self

    def text(self, query: str, **kwargs: Any) -> list[dict[str, Any]]:
        self.calls.append((query, kwargs))
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def backend(fake: FakeDDGS, **options: Any) -> DuckDuckGoBackend:
    return DuckDuckGoBackend(timeout=4.5, client_factory=fake, **options)


async def test_rows_become_hits_and_arguments_are_mapped() -> None:
    fake = FakeDDGS(ROWS)
    query = SearchQuery("sea otters", count=5, time_range="week", domains=("wikipedia.org",), safe_search="strict")
    hits = await backend(fake, region="de-de").search(query, None)
    assert [(h.title, h.url, h.snippet, h.backend) for h in hits] == [
        ("Sea otter - Wikipedia", "https://en.wikipedia.org/wiki/Sea_otter", "The sea otter is a marine mammal.",
         "duckduckgo"),
        ("Otters use tools", "https://news.example.org/otters", "Stones & shells.", "duckduckgo"),
    ]
    assert fake.timeouts == [5]
    assert fake.calls == [("sea otters site:wikipedia.org", {"region": "de-de", "safesearch": "on",
                                                             "timelimit": "w", "max_results": 5,
                                                             "backend": "duckduckgo"})]


async def test_no_filters_pass_none() -> None:
    fake = FakeDDGS(ROWS)
    await backend(fake, engines="auto").search(SearchQuery("otters", count=2), None)
    _, kwargs = fake.calls[0]
    assert (kwargs["timelimit"], kwargs["safesearch"], kwargs["backend"]) == (None, "moderate", "auto")


async def test_count_trims_the_rows() -> None:
    hits = await backend(FakeDDGS(ROWS)).search(SearchQuery("otters", count=1), None)
    assert len(hits) == 1


async def test_no_results_is_an_empty_list() -> None:
    assert await backend(FakeDDGS(DDGSException("No results found."))).search(SearchQuery("zzz", 5), None) == []


@pytest.mark.parametrize(("raised", "kind", "phrase"), [
    (RatelimitException("202 Ratelimit"), "quota", "rate limiting"),
    (TimeoutException("timed out"), "timeout", "did not answer within 4.5 s"),
    (DDGSException("https://html.duckduckgo.com/html 403 Forbidden"), "network", "403 Forbidden"),
])
async def test_library_errors_become_search_errors(raised: Exception, kind: str, phrase: str) -> None:
    with pytest.raises(SearchError) as caught:
        await backend(FakeDDGS(raised)).search(SearchQuery("otters", 5), None)
    assert caught.value.kind == kind
    assert "DuckDuckGo" in caught.value.message and phrase in caught.value.message

