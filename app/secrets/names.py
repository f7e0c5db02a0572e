"""Keyring entry names: one entry per provider (``provider:<id>``), web search backend (``search:<backend>``) or
secret environment variable or header of an MCP server (``mcp:<server>:<NAME>``).

Every entry lives under the service name ``parley``. These names are also what a ``secret_lookup`` callable
takes (web search tools ask for ``search:tavily`` and so on).
"""

from __future__ import annotations

import re

from app.settings.model import PROVIDER_ID_PATTERN, SEARCH_BACKENDS
from tools.mcp.settings import SECRET_PREFIX, SERVER_NAME_PATTERN

SERVICE = "parley"
PROVIDER_PREFIX = "provider:"
SEARCH_PREFIX = "search:"
MCP_PREFIX = SECRET_PREFIX


class EntryNameError(ValueError):
    pass


def provider_entry(provider_id: str) -> str:
    return PROVIDER_PREFIX + provider_id


def search_entry(backend: str) -> str:
    return SEARCH_PREFIX + backend


def normalize_entry_name(text: str) -> str:
    """``provider:<id>``, ``search:<backend>``, or a bare provider id (meaning ``provider:<id>``).

    Raises EntryNameError with a message for the user when the name is not valid.
    """
    text = text.strip()
    if text.startswith(MCP_PREFIX):
        server, _, name = text[len(MCP_PREFIX):].partition(":")
        if not re.fullmatch(SERVER_NAME_PATTERN, server) or not re.fullmatch(r"[A-Za-z0-9_-]+", name):
            raise EntryNameError(f"{text!r} is not a valid name: use mcp:SERVER:NAME (an environment variable or "
                                 "header of an MCP server)")
        return text
    if text.startswith(SEARCH_PREFIX):
        backend = text[len(SEARCH_PREFIX):]
        if backend not in SEARCH_BACKENDS:
            raise EntryNameError(f"unknown search backend {backend!r}; known: {', '.join(SEARCH_BACKENDS)}")
        return text
    provider_id = text[len(PROVIDER_PREFIX):] if text.startswith(PROVIDER_PREFIX) else text
    if not re.fullmatch(PROVIDER_ID_PATTERN, provider_id):
        raise EntryNameError(f"{text!r} is not a valid name: use a provider id (letters, digits, '.', '_', '-'), "
                             f"provider:ID or search:BACKEND ({', '.join(SEARCH_BACKENDS)})")
    return provider_entry(provider_id)
