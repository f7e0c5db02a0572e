"""From the settings file to the tool registry a run offers: web search backend and keys, fetch policy,
workspace folders, MCP servers, and each tool's approval policy.

The settings file keeps the user-facing choices (app/settings); the tools keep their own settings models
(tools/web/settings.py, tools/files/settings.py). This module is the one translation between them, used by
both the window and ``parley chat``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app.settings import Settings
from tools import FetchSettings, SearchSettings, WorkspaceSettings, default_registry
from tools.registry import ToolRegistry

if TYPE_CHECKING:  # the MCP SDK loads when servers are started, not when this module is imported
    from tools.mcp import McpManager

MCP_CONNECT_TIMEOUT_S = 15.0  # how long the CLI waits for MCP servers to connect before a run or a listing


def search_settings(settings: Settings) -> SearchSettings:
    chosen = settings.search
    fields: dict[str, object] = {"result_count": chosen.result_count, "safe_search": chosen.safe_search}
    if chosen.backend:
        fields["backend"] = chosen.backend
    for backend, url in chosen.base_urls.items():
        fields[f"{backend}_base_url"] = url
    return SearchSettings.model_validate(fields)


def mcp_manager(settings: Settings, secret_lookup: Callable[[str], str | None]) -> McpManager:
    """A manager for the configured MCP servers, not started yet (``start()`` needs a running event loop)."""
    from tools.mcp import McpManager

    return McpManager(settings.mcp_servers, secret_lookup)


async def connected_mcp(settings: Settings, secret_lookup: Callable[[str], str | None],
                        seconds: float = MCP_CONNECT_TIMEOUT_S) -> McpManager:
    """The MCP servers started and given up to ``seconds`` to connect (the CLI's step before a run); servers
    still connecting keep trying in the background and their tools are not offered to this run."""
    manager = mcp_manager(settings, secret_lookup)
    await start_mcp(manager, seconds)
    return manager


async def start_mcp(manager: McpManager, seconds: float = MCP_CONNECT_TIMEOUT_S) -> None:
    """``connected_mcp`` for a manager made beforehand (so the caller holds it even if this is interrupted)."""
    manager.start()
    await manager.wait_ready(seconds)


def tool_registry(settings: Settings, secret_lookup: Callable[[str], str | None],
                  mcp: McpManager | None = None) -> ToolRegistry:
    """The tools for a run (with the MCP servers' tools listed so far, when a manager is given), with the
    approval policy of settings.tools applied (``ask`` or ``allow``); tools whose policy is ``deny`` are left
    out."""
    registry = configured_tools(settings, secret_lookup, mcp)
    apply_approval(registry, settings)
    return registry


def configured_tools(settings: Settings, secret_lookup: Callable[[str], str | None],
                     mcp: McpManager | None = None) -> ToolRegistry:
    """Every tool the settings configure, before their approval policies (denied tools included)."""
    workspace = WorkspaceSettings(folders=[Path(f) for f in settings.workspace_folders],
                                  writable=[Path(f) for f in settings.workspace_writable])
    registry = default_registry(search=search_settings(settings),
                                fetch=FetchSettings(allow_local_addresses=settings.allow_local_addresses),
                                workspace=workspace, secret_lookup=secret_lookup)
    if mcp is not None:
        mcp.register_into(registry)
    return registry


def add_mcp_tools(registry: ToolRegistry, settings: Settings, mcp: McpManager) -> None:
    """The MCP tools listed so far added to a run's registry, with their approval policy applied."""
    mcp.register_into(registry)
    apply_approval(registry, settings)


def apply_approval(registry: ToolRegistry, settings: Settings) -> None:
    for name, policy in settings.tools.approval.items():
        tool = registry.get(name)
        if tool is None:
            continue
        if policy == "deny":
            registry.unregister(name)
        else:
            tool.needs_approval = policy == "ask"
