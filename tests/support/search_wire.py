"""Search API answers in each service's documented shape, for loopback servers in the web tool tests.

The shapes follow the services' API references (Tavily ``POST /search``, Brave ``GET /res/v1/web/search``,
Exa ``POST /search``, SearXNG ``GET /search?format=json``), including fields Parley ignores, so a test fails
if the adapters start depending on something the services do not send. Error bodies follow the same references.
"""

from __future__ import annotations

from typing import Any

OTTER_URL = "https://en.wikipedia.org/wiki/Sea_otter"
TOOLS_URL = "https://news.example.org/otters-use-tools"


def tavily_results() -> dict[str, Any]:
    return {
        "query": "sea otters",
        "follow_up_questions": None,
        "answer": None,
        "images": [],
        "results": [
            {"title": "Sea otter - Wikipedia", "url": OTTER_URL,
             "content": "The sea otter is a marine mammal native to the coasts of the northern North Pacific.",
             "score": 0.98, "raw_content": None},
            {"title": "Otters use tools", "url": TOOLS_URL, "content": "Sea otters crack shells with stones.",
             "score": 0.87, "raw_content": None, "published_date": "Tue, 04 Jun 2024 10:00:00 GMT"},
        ],
        "response_time": 1.09,
    }


def tavily_error(message: str) -> dict[str, Any]:
    return {"detail": {"error": message}}


def brave_results() -> dict[str, Any]:
    return {
        "type": "search",
        "query": {"original": "sea otters", "show_strict_warning": False, "is_navigational": False,
                  "more_results_available": True},
        "mixed": {"type": "mixed", "main": [{"type": "web", "index": 0, "all": False}], "top": [], "side": []},
        "web": {
            "type": "search",
            "family_friendly": True,
            "results": [
                {"type": "search_result", "title": "Sea otter - Wikipedia", "url": OTTER_URL,
                 "is_source_local": False, "is_source_both": False,
                 "description": "The <strong>sea otter</strong> is a marine mammal &amp; a keystone species.",
                 "page_age": "2024-05-01T12:00:00", "age": "May 1, 2024", "language": "en",
                 "family_friendly": True, "profile": {"name": "Wikipedia", "url": OTTER_URL},
                 "meta_url": {"scheme": "https", "netloc": "en.wikipedia.org", "hostname": "en.wikipedia.org"}},
                {"type": "search_result", "title": "Otters use tools", "url": TOOLS_URL,
                 "description": "Sea otters crack shells with <strong>stones</strong>.", "age": "2 days ago",
                 "language": "en", "family_friendly": True},
            ],
        },
    }


def brave_error(status: int, code: str, detail: str) -> dict[str, Any]:
    return {"type": "ErrorResponse", "time": 1717000000,
            "error": {"id": "5a1c8c52-0000-4000-8000-000000000000", "status": status, "code": code,
                      "detail": detail, "meta": {"component": "api"}}}


def exa_results() -> dict[str, Any]:
    return {
        "requestId": "b5947044c4b78efa9552a7c89b306d95",
        "resolvedSearchType": "neural",
        "searchType": "auto",
        "results": [
            {"id": OTTER_URL, "title": "Sea otter - Wikipedia", "url": OTTER_URL,
             "publishedDate": "2024-03-01T00:00:00.000Z", "author": "Wikipedia contributors", "score": 0.41,
             "text": "The sea otter (Enhydra lutris) is a marine mammal native to the North Pacific."},
            {"id": TOOLS_URL, "title": "Otters use tools", "url": TOOLS_URL, "publishedDate": None,
             "author": None, "highlights": ["Sea otters crack shells with stones."], "highlightScores": [0.5]},
        ],
        "costDollars": {"total": 0.005},
    }


def exa_error(message: str, tag: str) -> dict[str, Any]:
    return {"requestId": "0f1e2d3c4b5a69788796a5b4c3d2e1f0", "error": message, "tag": tag}


def searxng_results() -> dict[str, Any]:
    return {
        "query": "sea otters",
        "number_of_results": 0,
        "results": [
            {"url": OTTER_URL, "title": "Sea otter - Wikipedia",
             "content": "The sea otter is a marine mammal native to the coasts of the northern North Pacific.",
             "engine": "wikipedia", "parsed_url": ["https", "en.wikipedia.org", "/wiki/Sea_otter", "", "", ""],
             "template": "default.html", "engines": ["wikipedia", "duckduckgo"], "positions": [1, 2],
             "score": 4.0, "category": "general", "publishedDate": None},
            {"url": TOOLS_URL, "title": "Otters use tools", "content": "Sea otters crack shells with stones.",
             "engine": "brave", "template": "default.html", "engines": ["brave"], "positions": [3],
             "score": 0.33, "category": "general", "publishedDate": "2024-06-04T10:00:00"},
            {"url": "https://third.example.com/", "title": "Third", "content": "", "engine": "brave",
             "engines": ["brave"], "positions": [4], "score": 0.2, "category": "general"},
        ],
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": ["sea otter facts"],
        "unresponsive_engines": [["google", "timeout"]],
    }
