"""MCP servers as tools: settings, connections kept alive in the background, and their tools for the loop.

The names below load on first use (PEP 562): the settings and a server's status are read at start-up, while the
MCP SDK behind the connections is slow to import and needed only when a server is started.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tools.mcp.connection import ServerConnection, ServerNotRunning
    from tools.mcp.manager import McpManager, probe_server, summary
    from tools.mcp.names import exposed_name
    from tools.mcp.settings import McpServerSettings, secret_entry
    from tools.mcp.status import RestartPolicy, ServerStatus
    from tools.mcp.tool import McpTool

_HOMES = {
    "McpManager": "manager", "probe_server": "manager", "summary": "manager",
    "McpServerSettings": "settings", "secret_entry": "settings",
    "McpTool": "tool", "exposed_name": "names",
    "RestartPolicy": "status", "ServerConnection": "connection", "ServerNotRunning": "connection",
    "ServerStatus": "status",
}

__all__ = [
    "McpManager",
    "McpServerSettings",
    "McpTool",
    "RestartPolicy",
    "ServerConnection",
    "ServerNotRunning",
    "ServerStatus",
    "exposed_name",
    "probe_server",
    "secret_entry",
    "summary",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'tools.mcp' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"tools.mcp.{home}"), name)
    globals()[name] = value
    return value
