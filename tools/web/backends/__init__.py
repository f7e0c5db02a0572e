"""The search backends, one module each, and ``backend_for`` to build the one the settings choose.

Every backend maps ``SearchQuery`` to its service's request and the answer to ``SearchHit``s; the HTTP ones
share ``http.request_json`` for the failure messages. Keys are looked up by the tool, not here, under the
keyring entry ``search:<id>``.
"""

from __future__ import annotations

from tools.web.backends.brave import BraveBackend
from tools.web.backends.duckduckgo import DuckDuckGoBackend
from tools.web.backends.exa import ExaBackend
from tools.web.backends.searxng import SearxngBackend
from tools.web.backends.tavily import TavilyBackend
from tools.web.search_types import SearchBackend
from tools.web.settings import SearchSettings

__all__ = [
    "BraveBackend",
    "DuckDuckGoBackend",
    "ExaBackend",
    "SearxngBackend",
    "TavilyBackend",
    "backend_for",
    "key_entry",
]


def key_entry(backend_id: str) -> str:
    """The keyring entry name holding a backend's key."""
    return f"search:{backend_id}"


def backend_for(settings: SearchSettings) -> SearchBackend:
    timeout = settings.timeout
    match settings.backend:
        case "tavily":
            return TavilyBackend(settings.tavily_base_url, timeout)
        case "brave":
            return BraveBackend(settings.brave_base_url, timeout)
        case "exa":
            return ExaBackend(settings.exa_base_url, timeout)
        case "searxng":
            return SearxngBackend(settings.searxng_base_url, timeout)
        case "duckduckgo":
            return DuckDuckGoBackend(timeout, region=settings.duckduckgo_region, engines=settings.duckduckgo_engines)
