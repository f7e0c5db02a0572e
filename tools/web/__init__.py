"""The web tools: ``web_search`` (five backends) and ``web_fetch`` (one page, read safely).

``web_tools`` builds both from their settings; the keyring is reached only through ``secret_lookup``, which
takes entry names such as ``search:brave`` and returns the key or None. See docs/tools.md.

The settings models load at once (the app's settings embed them); the tools themselves, with their HTTP
client and search backends, load on first use (PEP 562) so that reading the settings stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tools.web.settings import FetchSettings, SearchSettings

if TYPE_CHECKING:
    from tools.registry import Tool
    from tools.web.address_guard import Resolver
    from tools.web.fetch import web_fetch_tool
    from tools.web.search import SecretLookup, web_search_tool

__all__ = [
    "FetchSettings",
    "SearchSettings",
    "SecretLookup",
    "no_secrets",
    "web_fetch_tool",
    "web_search_tool",
    "web_tools",
]

_HOMES = {"web_fetch_tool": "fetch", "web_search_tool": "search", "SecretLookup": "search"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'tools.web' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"tools.web.{home}"), name)
    globals()[name] = value
    return value


def no_secrets(entry: str) -> str | None:
    """A lookup that knows no keys: enough for the default DuckDuckGo backend."""
    return None


def web_tools(search: SearchSettings | None = None, fetch: FetchSettings | None = None,
              secret_lookup: SecretLookup = no_secrets, resolver: Resolver | None = None) -> list[Tool]:
    """New ``web_search`` and ``web_fetch`` tools for these settings (defaults when None)."""
    from tools.web.fetch import web_fetch_tool
    from tools.web.search import web_search_tool

    return [web_search_tool(search or SearchSettings(), secret_lookup),
            web_fetch_tool(fetch or FetchSettings(), resolver)]
