"""How an MCP server's tool is named for the model: ``<server>__<tool>``, in the characters providers accept.

Kept apart from ``tool.py`` so that listings and settings screens can name tools without importing the MCP SDK.
"""

from __future__ import annotations

import re

NAME_SEPARATOR = "__"
MAX_TOOL_NAME_CHARS = 64  # what the providers accept


def exposed_name(server: str, tool: str) -> str:
    """``<server>__<tool>`` with characters providers refuse replaced by ``_``, cut to 64 characters."""
    name = f"{server}{NAME_SEPARATOR}{re.sub(r'[^A-Za-z0-9_-]', '_', tool)}"
    return name[:MAX_TOOL_NAME_CHARS]
