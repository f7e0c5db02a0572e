"""A small MCP server (official SDK, stdio) that misbehaves on request, for the MCP client's failure tests.

Run as ``python -m tests.support.mcp_test_server [--start-delay SECONDS]``. Tools: ``echo``, ``crash`` (the
process exits mid-call), ``hang`` (never answers), ``huge`` (a result of N characters), ``picture`` (an image,
an embedded text resource and a resource link).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time

from mcp import types
from mcp.server.mcpserver import MCPServer

PNG_1PX = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")

server = MCPServer("parley-test")


@server.tool()
async def echo(text: str, times: int = 1) -> str:
    """Repeat the text."""
    return " ".join([text] * times)


@server.tool()
async def crash() -> str:
    """Exit the server process while the call is running."""
    os._exit(3)


@server.tool()
async def hang() -> str:
    """Never answer."""
    await asyncio.Event().wait()
    return "unreachable"


@server.tool()
async def huge(size: int) -> str:
    """A result of SIZE characters."""
    return "x" * size


@server.tool()
async def picture() -> list[types.ContentBlock]:
    """An image, an embedded text resource and a resource link."""
    return [
        types.ImageContent(type="image", data=PNG_1PX, mime_type="image/png"),
        types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
            uri="file:///notes.txt", mime_type="text/plain", text="the notes")),
        types.ResourceLink(type="resource_link", name="report", uri="file:///report.pdf"),
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--start-delay", type=float, default=0.0)
    parser.add_argument("--exit-after", type=float, default=None, help="exit this many seconds after starting")
    args = parser.parse_args()
    time.sleep(args.start_delay)
    if args.exit_after is not None:
        import threading

        threading.Timer(args.exit_after, os._exit, args=(5,)).start()
    server.run()


if __name__ == "__main__":
    main()
