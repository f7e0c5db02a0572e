"""Fuzzing the search backends' response parsers: whatever a search service answers (status, body, shape),
the backend returns well-formed hits or raises SearchError with a message, never anything else."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.fuzz.strategies import damaged_bytes, encode_json, json_values, mutated
from tests.support import search_wire
from tests.support.hypothesis_profiles import budget
from tests.support.loopback import LoopbackServer, Response
from tools.web.backends import BraveBackend, DuckDuckGoBackend, ExaBackend, SearxngBackend, TavilyBackend
from tools.web.search_types import SearchBackend, SearchError, SearchHit, SearchQuery

QUERY = SearchQuery(text="sea otters", count=5)
BACKENDS: dict[str, tuple[str, str, Callable[[str], SearchBackend], dict[str, Any]]] = {
    "tavily": ("POST", "/search", lambda url: TavilyBackend(url, 5.0), search_wire.tavily_results()),
    "brave": ("GET", "/res/v1/web/search", lambda url: BraveBackend(url, 5.0), search_wire.brave_results()),
    "exa": ("POST", "/search", lambda url: ExaBackend(url, 5.0), search_wire.exa_results()),
    "searxng": ("GET", "/search", lambda url: SearxngBackend(url, 5.0), search_wire.searxng_results()),
}
STATUSES = st.sampled_from([200, 200, 200, 201, 204, 301, 400, 401, 403, 404, 422, 429, 432, 500, 503])


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as running:
        yield running


def _check_hits(hits: Any) -> None:
    assert isinstance(hits, list) and len(hits) <= QUERY.count
    for hit in hits:
        assert isinstance(hit, SearchHit)
        assert hit.url.startswith(("http://", "https://")) and isinstance(hit.title, str) and hit.title
        assert isinstance(hit.snippet, str)
        assert hit.score is None or math.isfinite(hit.score)
        json.dumps(hit.as_dict(), allow_nan=False)  # the tool sends hits to the model and the UI as JSON


def bodies(name: str) -> st.SearchStrategy[bytes]:
    success = BACKENDS[name][3]
    return st.one_of(
        mutated(success, None).map(encode_json).map(str.encode),
        mutated(success).map(encode_json).map(str.encode),
        json_values.map(encode_json).map(str.encode),
        damaged_bytes(json.dumps(success)),
        st.binary(max_size=64),
    )


answers = st.sampled_from(sorted(BACKENDS)).flatmap(lambda name: st.tuples(st.just(name), STATUSES, bodies(name)))


@budget(0.5)
@given(answers)
@example(("tavily", 200, b'{"results": [{"url": "https://a.example", "score": 1e999}]}'))
@example(("exa", 200, b'{"results": [{"url": "https://a.example", "score": ' + b"9" * 400 + b"}]}"))
@example(("brave", 200, b'{"web": {"results": [{"url": "https://a.example", "title": "\\ud800"}]}}'))
@example(("searxng", 429, b'{"error": {"detail": 5}}'))
def test_any_search_answer_gives_hits_or_a_search_error(server: LoopbackServer, answer) -> None:
    name, status, body = answer
    method, path, make, _ = BACKENDS[name]
    server.reset()
    server.always(method, path, Response.body(body, "application/json", status=status))
    try:
        hits = asyncio.run(make(server.url).search(QUERY, "key"))
    except SearchError as exc:
        assert str(exc)
        return
    _check_hits(hits)


class _Rows:
    """DuckDuckGo's library seam: ``text()`` returns what the fuzzer drew."""

    def __init__(self, rows: Any) -> None:
        self.rows = rows

    def text(self, query: str, **kwargs: Any) -> Any:
        return self.rows


ddg_rows = st.one_of(
    json_values,
    st.lists(mutated({"title": "Sea otter", "href": search_wire.OTTER_URL, "body": "A <b>marine</b> mammal."},
                     None), max_size=6),
    st.lists(st.dictionaries(st.sampled_from(["title", "href", "body"]), json_values), max_size=6),
)


@given(ddg_rows)
def test_any_duckduckgo_rows_give_hits_or_a_search_error(rows) -> None:
    backend = DuckDuckGoBackend(5.0, client_factory=lambda timeout: _Rows(rows))
    try:
        hits = asyncio.run(backend.search(QUERY, None))
    except SearchError as exc:
        assert str(exc)
        return
    _check_hits(hits)
