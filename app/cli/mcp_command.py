"""``parley mcp add|remove|list``: the MCP servers whose tools are offered to the model.

``add`` and ``remove`` edit the settings file; secret values are not taken on the command line but named
(``--secret-env VAR``, ``--secret-header NAME``) and stored with ``parley keys set mcp:SERVER:NAME``.
``list`` connects to the enabled servers (up to MCP_CONNECT_TIMEOUT_S) to show their status and tools.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import cast

from pydantic import ValidationError

from app.cli.cli_common import EXIT_OK, UsageError
from app.cli.cli_context import save_settings_from_args, secret_store, settings_from_args, warn
from app.cli.list_output import printed_json_or_empty
from app.cli.mcp_notice import as_seen_once, missing_command
from app.errors import describe_validation_error
from app.settings import Settings
from tools.mcp import McpServerSettings, ServerStatus, exposed_name, secret_entry


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser],
               parents: list[argparse.ArgumentParser]) -> None:
    mcp = sub.add_parser("mcp", parents=parents, help="add, remove and list MCP servers (their tools become tools)")
    actions = mcp.add_subparsers(dest="mcp_command", metavar="ACTION")
    add = actions.add_parser("add", parents=parents, usage="parley mcp add NAME [OPTIONS] -- COMMAND [ARGS...]\n"
                             "       parley mcp add NAME --url URL [OPTIONS]",
                             help="add a server: NAME -- COMMAND [ARGS...], or NAME --url URL",
                             description="Add an MCP server. A local server: `parley mcp add time -- uvx "
                                         "mcp-server-time`. A remote one: `parley mcp add docs --url URL`.")
    add.add_argument("name", help="letters, digits, '_' or '-'; its tools are called NAME__TOOL")
    add.add_argument("--url", help="a streamable HTTP server's endpoint")
    add.add_argument("--env", action="append", default=[], metavar="VAR=VALUE",
                     help="a non-secret environment variable for the command (repeatable)")
    add.add_argument("--secret-env", action="append", default=[], metavar="VAR",
                     help="an environment variable whose value is kept in the keyring (repeatable)")
    add.add_argument("--header", action="append", default=[], metavar="NAME=VALUE",
                     help="a non-secret header for an HTTP server (repeatable)")
    add.add_argument("--secret-header", action="append", default=[], metavar="NAME",
                     help="a header whose value is kept in the keyring (repeatable)")
    add.add_argument("--cwd", metavar="DIR", help="the command's working directory")
    add.add_argument("--disabled", action="store_true", help="add it switched off")
    add.set_defaults(server_command=[])  # what follows `--`, split off by split_server_command before parsing
    remove = actions.add_parser("remove", parents=parents, help="remove a server")
    remove.add_argument("name")
    listing = actions.add_parser("list", parents=parents, help="the servers, their status and tools")
    listing.add_argument("--json", action="store_true", help="print as JSON")


def split_server_command(argv: list[str]) -> tuple[list[str], list[str] | None]:
    """``parley mcp add NAME [OPTIONS] -- COMMAND [ARGS...]``: the part after ``--`` is the server's command
    line, taken verbatim (its own options included), so it is split off before argparse sees it."""
    if "mcp" not in argv or "--" not in argv:
        return argv, None
    at_mcp = argv.index("mcp")
    if argv[at_mcp + 1:at_mcp + 2] != ["add"]:
        return argv, None
    cut = argv.index("--")
    if cut < at_mcp:
        return argv, None
    return argv[:cut], argv[cut + 1:]


def _pairs(items: list[str], flag: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{flag} expects NAME=VALUE, got {item!r}")
        pairs[key.strip()] = value
    return pairs


def _add(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    if settings.mcp_server(args.name) is not None:
        raise UsageError(f"there is already an MCP server {args.name!r}; remove it first with "
                         f"`parley mcp remove {args.name}`")
    command = args.server_command
    if bool(command) == bool(args.url):
        raise UsageError("give either a command after -- (parley mcp add NAME -- COMMAND [ARGS...]) or --url URL")
    fields: dict[str, object] = {"name": args.name, "enabled": not args.disabled}
    if args.url:
        fields |= {"transport": "http", "url": args.url, "headers": _pairs(args.header, "--header"),
                   "secret_headers": args.secret_header}
    else:
        fields |= {"transport": "stdio", "command": command[0], "args": command[1:], "cwd": args.cwd,
                   "env": _pairs(args.env, "--env"), "secret_env": args.secret_env}
    try:
        server = McpServerSettings.model_validate(fields)
        updated = settings.model_copy(update={"mcp_servers": [*settings.mcp_servers, server]})
        type(settings).model_validate(updated.model_dump())
    except ValidationError as exc:
        raise UsageError(describe_validation_error(exc)) from None
    save_settings_from_args(args, updated)
    where = server.url if server.transport == "http" else " ".join([server.command or "", *server.args])
    print(f"Added MCP server {server.name} ({server.transport}: {where}).")
    for name in [*server.secret_env, *server.secret_headers]:
        print(f"Store the value of {name} with: parley keys set {secret_entry(server.name, name)}")
    print("Its tools ask for approval before they run; `parley mcp list` shows them.")
    if server.transport == "stdio" and server.command and missing_command(server.command, server.cwd):
        warn(f"{server.command} was not found (not on PATH, not a file); the server cannot start until it is "
             f"installed or the command is fixed (`parley mcp remove {server.name}`, then add it again)")
    return EXIT_OK


def _remove(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    server = settings.mcp_server(args.name)
    if server is None:
        raise UsageError(f"there is no MCP server {args.name!r}")
    updated = settings.model_copy(update={"mcp_servers": [m for m in settings.mcp_servers if m.name != args.name]})
    save_settings_from_args(args, updated)
    print(f"Removed MCP server {args.name}.")
    secrets = [secret_entry(server.name, n) for n in [*server.secret_env, *server.secret_headers]]
    if secrets:
        print(f"Its secrets are still in the keyring: `parley keys delete {secrets[0]}` removes one.")
    return EXIT_OK


def status_rows(servers: list[McpServerSettings], statuses: list[ServerStatus]) -> list[dict[str, object]]:
    by_name = {s.name: s for s in statuses}
    rows = []
    for server in servers:
        status = by_name.get(server.name)
        rows.append({
            "name": server.name, "transport": server.transport, "enabled": server.enabled,
            "target": server.url if server.transport == "http" else " ".join([server.command or "", *server.args]),
            "status": status.state if status else "disabled", "message": status.message if status else None,
            "tools": [exposed_name(server.name, t) for t in (status.tools if status else ())],
        })
    return rows


async def _statuses(args: argparse.Namespace, settings: Settings) -> list[ServerStatus]:
    from app.runs.tool_setup import MCP_CONNECT_TIMEOUT_S, connected_mcp

    manager = await connected_mcp(settings, secret_store(args).lookup, MCP_CONNECT_TIMEOUT_S)
    try:
        return [as_seen_once(status) for status in manager.statuses()]
    finally:
        await manager.aclose()


def _list(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    statuses = asyncio.run(_statuses(args, settings)) if settings.mcp_servers else []
    rows = status_rows(settings.mcp_servers, statuses)
    if printed_json_or_empty(rows, as_json=args.json,
                             empty="No MCP servers yet. Add one with: parley mcp add NAME -- COMMAND [ARGS...]"):
        return EXIT_OK
    for r in rows:
        print(f"{r['name']}  {r['transport']}  {r['status']}  {r['target']}")
        if r["message"]:
            print(f"    {r['message']}")
        for tool in cast(list[str], r["tools"]):  # status_rows puts the tool names here
            print(f"    {tool}")
    return EXIT_OK


def run_mcp(args: argparse.Namespace) -> int:
    commands = {"add": _add, "remove": _remove, "list": _list}
    command = commands.get(getattr(args, "mcp_command", None) or "list")
    assert command is not None
    return command(args)
