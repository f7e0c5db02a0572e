"""``parley tools list``: every tool the settings configure, with category, visibility, the approval policy a run
gives it (ask, allow or deny) and whether a run offers it, with the reason when it does not (denied in the
settings, a file tool with no workspace folder chosen, or a write tool with no read-write folder). The
configured MCP servers are connected first (up to MCP_CONNECT_TIMEOUT_S) so their tools are listed too."""

from __future__ import annotations

import argparse
import json
from typing import Any

from app.cli.cli_common import EXIT_OK
from app.cli.cli_context import key_lookup, settings_from_args
from app.lean_imports import import_httpx
from app.runs.tool_setup import configured_tools, connected_mcp
from app.settings import Settings
from orchestration.tool_api import RunnableTool
from tools.files import WRITE_TOOLS, WorkspaceSettings, described_workspace_tools

NO_WORKSPACE = "no workspace folder chosen (Preferences > Workspace, or workspace_folders in settings)"
NO_WRITABLE = "no read-write workspace folder (Preferences > Workspace, or workspace_writable in settings)"
DENIED = "denied in the settings (tools.approval)"


async def _with_mcp(args: argparse.Namespace, settings: Settings) -> list[RunnableTool]:
    import_httpx()  # the MCP SDK's client: without httpx's command-line libraries (app/lean_imports.py)
    lookup = key_lookup(args)
    manager = await connected_mcp(settings, lookup)
    try:
        return list(configured_tools(settings, lookup, manager))
    finally:
        await manager.aclose()


def _row(tool: RunnableTool, settings: Settings, reason: str | None) -> dict[str, Any]:
    policy = settings.tools.approval.get(tool.name) or ("ask" if tool.needs_approval else "allow")
    if policy == "deny" and reason is None:
        reason = DENIED
    return {
        "name": tool.name,
        "category": tool.category,
        "visibility": tool.visibility,
        "approval": policy,
        "needs_approval": policy == "ask",
        "offered": reason is None,
        "reason": reason,
        "parallel_safe": tool.parallel_safe,
        "description": tool.description,
    }


def tool_rows(settings: Settings, tools: list[RunnableTool]) -> list[dict[str, Any]]:
    """One row per configured tool, then the file tools it lacks as off: all of them when no workspace folder is
    chosen, the write tools when none is read-write."""
    rows = [_row(tool, settings, None) for tool in tools]
    offered = {tool.name for tool in tools}
    for tool in described_workspace_tools(WorkspaceSettings()):
        if tool.name in offered:
            continue
        reason = NO_WORKSPACE if not settings.workspace_folders else NO_WRITABLE
        if tool.name in WRITE_TOOLS or not settings.workspace_folders:
            rows.append(_row(tool, settings, reason))
    return rows


def run_tools(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    if settings.mcp_servers:
        import asyncio  # the MCP servers are the only thing a listing waits for

        tools = asyncio.run(_with_mcp(args, settings))
    else:
        tools = list(configured_tools(settings, key_lookup(args)))
    rows = tool_rows(settings, tools)
    if getattr(args, "json", False):
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    width = max((len(r["name"]) for r in rows), default=4)
    print(f"{'NAME':<{width}}  CATEGORY  VISIBILITY  APPROVAL  DESCRIPTION")
    for r in rows:
        description = f"off: {r['reason']}. {r['description']}" if r["reason"] else r["description"]
        print(f"{r['name']:<{width}}  {r['category']:<8}  {r['visibility']:<10}  {r['approval']:<8}  {description}")
    return EXIT_OK
