"""MCP servers as tools: settings, connections kept alive in the background, and their tools for the loop."""

from tools.mcp.connection import RestartPolicy, ServerConnection, ServerNotRunning, ServerStatus
from tools.mcp.manager import McpManager, probe_server, summary
from tools.mcp.settings import McpServerSettings, secret_entry
from tools.mcp.tool import McpTool, exposed_name

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
