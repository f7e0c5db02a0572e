"""``parley tools list``: every tool the settings configure, with category, visibility, the approval policy a run
gives it (ask, allow or deny) and whether a run offers it, with the reason when it does not (denied in the
settings, a file tool with no workspace folder chosen, or a write tool with no read-write folder). The
configured MCP servers are connected first (up to MCP_CONNECT_TIMEOUT_S) so their tools are listed too.

Two ways to the same rows. When the settings file holds nothing the plain read cannot vouch for
(app/cli/listing_settings.py), the built-in tools are described from their catalogue (app/runs/tool_catalogue.py)
without importing pydantic, the settings models or the tool modules (issue 17: the listing's start-up limit).
Otherwise the settings are loaded through the model, which reports a bad file as every command does, and the
tools are built as a run builds them (MCP servers included).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from app.cli.cli_common import EXIT_OK
from app.cli.listing_settings import read_listing_settings
from app.paths import resolve_paths
from app.runs.tool_catalogue import FILE_TOOLS, WRITE_TOOLS, DescribedTool, configured_without_workspace

if TYPE_CHECKING:
    from app.settings import Settings
    from orchestration.tool_api import RunnableTool

NO_WORKSPACE = "no workspace folder chosen (Preferences > Workspace, or workspace_folders in settings)"
NO_WRITABLE = "no read-write workspace folder (Preferences > Workspace, or workspace_writable in settings)"
DENIED = "denied in the settings (tools.approval)"


async def _with_mcp(args: argparse.Namespace, settings: Settings) -> list[RunnableTool]:
    from app.cli.cli_context import key_lookup
    from app.lean_imports import import_httpx
    from app.runs.tool_setup import configured_tools, connected_mcp

    import_httpx()  # the MCP SDK's client: without httpx's command-line libraries (app/lean_imports.py)
    lookup = key_lookup(args)
    manager = await connected_mcp(settings, lookup)
    try:
        return list(configured_tools(settings, lookup, manager))
    finally:
        await manager.aclose()


def _row(tool: DescribedTool, approval: Mapping[str, str], reason: str | None) -> dict[str, Any]:
    policy = approval.get(tool.name) or ("ask" if tool.needs_approval else "allow")
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


def tool_rows(approval: Mapping[str, str], workspace_chosen: bool,
              tools: Sequence[DescribedTool]) -> list[dict[str, Any]]:
    """One row per configured tool, then the file tools it lacks as off: all of them when no workspace folder is
    chosen, the write tools when none is read-write (described as with no folder, from the catalogue)."""
    rows = [_row(tool, approval, None) for tool in tools]
    offered = {tool.name for tool in tools}
    for tool in FILE_TOOLS:
        if tool.name in offered:
            continue
        reason = NO_WORKSPACE if not workspace_chosen else NO_WRITABLE
        if tool.name in WRITE_TOOLS or not workspace_chosen:
            rows.append(_row(tool, approval, reason))
    return rows


def rows_from_the_model(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The rows with the settings validated by the model and the tools built as for a run."""
    from app.pydantic_plugins import skip_plugin_discovery

    skip_plugin_discovery()  # before the first model is built (app/pydantic_plugins.py)
    from app.cli.cli_context import key_lookup, settings_from_args  # with the settings models
    from app.runs.tool_setup import configured_tools

    settings = settings_from_args(args)
    tools: list[RunnableTool]
    if settings.mcp_servers:
        import asyncio  # the MCP servers are the only thing a listing waits for

        tools = asyncio.run(_with_mcp(args, settings))
    else:
        tools = list(configured_tools(settings, key_lookup(args)))
    return tool_rows(settings.tools.approval, bool(settings.workspace_folders), tools)


def listing_rows(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The listing's rows: from the catalogue when the plain read vouches for the settings, else from the model."""
    plain = read_listing_settings(resolve_paths(getattr(args, "data_dir", None)).settings)  # as cli_context does
    if plain is None:
        return rows_from_the_model(args)
    return tool_rows(plain.approval, False, configured_without_workspace(plain.search_backend))


def run_tools(args: argparse.Namespace) -> int:
    rows = listing_rows(args)
    if getattr(args, "json", False):
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    width = max((len(r["name"]) for r in rows), default=4)
    print(f"{'NAME':<{width}}  CATEGORY  VISIBILITY  APPROVAL  DESCRIPTION")
    for r in rows:
        description = f"off: {r['reason']}. {r['description']}" if r["reason"] else r["description"]
        print(f"{r['name']:<{width}}  {r['category']:<8}  {r['visibility']:<10}  {r['approval']:<8}  {description}")
    return EXIT_OK
