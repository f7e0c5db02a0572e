"""``parley tools list``: what the model can call, with category, visibility and approval; the configured MCP
servers are connected first (up to MCP_CONNECT_TIMEOUT_S) so their tools are listed too."""

from __future__ import annotations

import argparse
import asyncio
import json

from app.cli_common import EXIT_OK
from app.cli_context import secret_store, settings_from_args
from app.settings import Settings
from app.tool_setup import connected_mcp
from tools import default_registry
from tools.registry import ToolRegistry


async def _with_mcp(settings: Settings) -> ToolRegistry:
    registry = default_registry()
    manager = await connected_mcp(settings, secret_store().lookup)
    try:
        manager.register_into(registry)
    finally:
        await manager.aclose()
    return registry


def run_tools(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    registry = asyncio.run(_with_mcp(settings)) if settings.mcp_servers else default_registry()
    rows = [
        {
            "name": tool.name,
            "category": tool.category,
            "visibility": tool.visibility,
            "needs_approval": tool.needs_approval,
            "parallel_safe": tool.parallel_safe,
            "description": tool.description,
        }
        for tool in registry
    ]
    if getattr(args, "json", False):
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    width = max((len(r["name"]) for r in rows), default=4)
    print(f"{'NAME':<{width}}  CATEGORY  VISIBILITY  APPROVAL  DESCRIPTION")
    for r in rows:
        approval = "ask" if r["needs_approval"] else "allow"
        print(f"{r['name']:<{width}}  {r['category']:<8}  {r['visibility']:<10}  {approval:<8}  {r['description']}")
    return EXIT_OK
