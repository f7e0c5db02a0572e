"""A small MCP server (official SDK) that misbehaves on request, for the MCP client's failure tests.

Run as ``python -m tests.support.mcp_test_server [--start-delay SECONDS]`` for stdio, or add ``--http PORT``
(0 picks a free port) to serve streamable HTTP on 127.0.0.1; it then prints ``listening on URL`` as its first
line of output. ``--require-header NAME=VALUE`` makes the HTTP server answer 401 to requests without that
header. Tools: ``echo``, ``crash`` (the process exits mid-call), ``hang`` (never answers), ``freeze``
(the whole server stops answering, pings included), ``huge`` (a result of
N characters), ``picture`` (an image, an embedded text resource and a resource link); ``--many-tools N`` adds N more.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import sys
import time
from typing import Any

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
async def freeze(marker: str = "") -> str:
    """Stop answering anything: the server's event loop is blocked, so pings go unanswered too. With MARKER, a
    file of that name is created once frozen."""
    if marker:
        with open(marker, "w") as handle:  # noqa: ASYNC230  (blocking is the point)
            handle.write(str(os.getpid()))
    time.sleep(3600)  # noqa: ASYNC251  (blocking the loop is the point)
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


def _extra(number: int) -> Any:
    async def extra() -> str:
        return f"extra {number}"

    return extra


def requiring_header(app: Any, name: str, value: str) -> Any:
    """Wrap an ASGI app so HTTP requests without ``name: value`` get 401, as a server behind a token would."""
    wanted = (name.lower().encode("latin-1"), value.encode("latin-1"))

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and wanted not in scope["headers"]:
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"content-type", b"text/plain")]})
            await send({"type": "http.response.body", "body": b"missing or wrong credentials"})
            return
        await app(scope, receive, send)

    return guarded


def serve_http(port: int, required_header: str | None) -> None:
    import uvicorn

    app: Any = server.streamable_http_app()
    if required_header:
        name, _, value = required_header.partition("=")
        app = requiring_header(app, name, value)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(16)  # clients that connect before uvicorn serves wait in the backlog instead of being refused
    print(f"listening on http://127.0.0.1:{listener.getsockname()[1]}/mcp", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    asyncio.run(uvicorn.Server(config).serve(sockets=[listener]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--start-delay", type=float, default=0.0)
    parser.add_argument("--exit-after", type=float, default=None, help="exit this many seconds after starting")
    parser.add_argument("--http", type=int, default=None, metavar="PORT", help="serve streamable HTTP on PORT")
    parser.add_argument("--require-header", default=None, metavar="NAME=VALUE")
    parser.add_argument("--many-tools", type=int, default=0, metavar="N", help="also offer N tools extra_0 ...")
    args = parser.parse_args()
    for number in range(args.many_tools):
        server.add_tool(_extra(number), name=f"extra_{number}", description=f"Extra tool number {number}.")
    time.sleep(args.start_delay)
    if args.exit_after is not None:
        import threading

        threading.Timer(args.exit_after, os._exit, args=(5,)).start()
    if args.http is None:
        server.run()
    else:
        sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
        serve_http(args.http, args.require_header)


if __name__ == "__main__":
    main()
