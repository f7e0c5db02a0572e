"""Folding web tool data into de-duplicated entries (no Qt involved)."""

from __future__ import annotations

import pytest

from tests.support.run_script import search_hit
from widgets.search_results import (
    MAX_ENTRIES_PER_RUN,
    SNIPPET_DISPLAY_CHARS,
    SearchResults,
    is_openable,
    url_host,
    url_key,
)


@pytest.mark.parametrize(("first", "second"), [
    ("https://Example.org/docs/", "https://example.org/docs"),
    ("https://example.org/docs#intro", "http://EXAMPLE.org/docs/"),
    ("https://example.org", "https://example.org/"),
    ("https://example.org:443/a", "https://example.org/a"),
    ("https://example.org/a?utm=1", "https://example.org/a?utm=2"),
])
def test_same_page_gets_the_same_key(first, second):
    assert url_key(first) == url_key(second)


@pytest.mark.parametrize(("first", "second"), [
    ("https://example.org/a", "https://example.org/b"),
    ("https://example.org/Docs", "https://example.org/docs"),
    ("https://example.org/a", "https://docs.example.org/a"),
    ("https://example.org:8443/a", "https://example.org/a"),
])
def test_different_pages_get_different_keys(first, second):
    assert url_key(first) != url_key(second)


def test_url_key_of_urls_without_a_host_or_with_a_bad_port():
    assert url_key("mailto:someone@example.org#x") == "mailto:someone@example.org"
    assert url_key("https://example.org:99999/a") == "https://example.org:99999/a"


def test_host_for_display():
    assert url_host("https://WWW.Example.org/path") == "example.org"
    assert url_host("not a url") == ""


@pytest.mark.parametrize(("url", "openable"), [
    ("https://example.org/a", True),
    ("http://example.org", True),
    ("HTTPS://example.org", True),
    ("file:///etc/passwd", False),
    ("javascript:alert(1)", False),
    ("ftp://example.org/file", False),
    ("https://", False),
    ("example.org/page", False),
])
def test_only_web_urls_are_openable(url, openable):
    assert is_openable(url) is openable


def search(query: str, *hits: dict) -> dict:
    return {"kind": "search", "backend": "duckduckgo", "query": query, "results": list(hits)}


def test_search_results_are_deduplicated_by_host_and_path():
    results = SearchResults()
    added = results.add_tool_data(search("q1", search_hit("https://example.org/a", "A"),
                                         search_hit("https://example.org/a/#top", "A again"),
                                         search_hit("https://example.org/b", "B")))
    assert [entry.title for entry in added] == ["A", "B"]
    again = results.add_tool_data(search("q2", search_hit("http://EXAMPLE.org/b/", "B, second search")))
    assert again == []
    assert [entry.title for entry in results.entries()] == ["A", "B"]
    assert results.entries()[1].queries == ["q1", "q2"]
    assert results.queries == ["q1", "q2"]


def test_fetch_of_a_listed_url_marks_that_entry_read():
    results = SearchResults()
    results.add_tool_data(search("q", search_hit("https://example.org/a", "A")))
    changed = results.add_tool_data({"kind": "fetch", "url": "https://example.org/a/", "title": "A page",
                                     "truncated": True})
    assert len(changed) == 1
    entry = results.entries()[0]
    assert (entry.found, entry.read, entry.truncated, entry.title) == (True, True, True, "A")


def test_fetch_of_an_unlisted_url_adds_a_read_entry():
    results = SearchResults()
    results.add_tool_data({"kind": "fetch", "url": "https://other.org/page", "title": "Other", "truncated": False})
    [entry] = results.entries()
    assert (entry.found, entry.read, entry.title, entry.host) == (False, True, "Other", "other.org")


def test_fetch_without_a_title_shows_the_url_until_a_search_names_it():
    results = SearchResults()
    results.add_tool_data({"kind": "fetch", "url": "https://other.org/page", "title": "", "truncated": False})
    assert results.entries()[0].title == "https://other.org/page"
    results.add_tool_data(search("q", search_hit("https://other.org/page", "Named")))
    assert results.entries()[0].title == "Named"
    assert results.entries()[0].found


@pytest.mark.parametrize("data", [
    None, "text", {"kind": "other"}, {"kind": "search", "results": "nope"},
    {"kind": "search", "results": [{"title": "no url"}, "string", {"url": "  "}, {"url": 5}]},
    {"kind": "fetch", "title": "no url"},
])
def test_data_that_is_not_web_results_is_ignored(data):
    results = SearchResults()
    assert results.add_tool_data(data) == []
    assert len(results) == 0


def test_snippets_are_flattened_and_cut():
    results = SearchResults()
    long_snippet = "word  \n " * 200
    results.add_tool_data(search("q", search_hit("https://example.org", snippet=long_snippet)))
    snippet = results.entries()[0].snippet
    assert "\n" not in snippet and "  " not in snippet
    assert len(snippet) <= SNIPPET_DISPLAY_CHARS
    assert snippet.endswith("…")


def test_entries_beyond_the_limit_are_counted_not_kept():
    results = SearchResults()
    hits = [search_hit(f"https://example.org/{n}") for n in range(MAX_ENTRIES_PER_RUN + 5)]
    results.add_tool_data(search("q", *hits))
    assert len(results) == MAX_ENTRIES_PER_RUN
    assert results.dropped == 5
