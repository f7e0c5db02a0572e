"""All configured MCP servers: started in the background, their tools offered under collision-free names.

``start()`` never waits for a server; each connects in its own task and reports a status. Callers that want
the tools before a run (the CLI) await ``wait_ready(seconds)``, which returns when every enabled server has
connected or failed once, or when the timeout passes, whichever is first.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from tools.mcp.names import exposed_name
from tools.mcp.settings import McpServerSettings
from tools.mcp.status import DEFAULT_RESTART_POLICY, RestartPolicy, SecretLookup, ServerStatus

if TYPE_CHECKING:  # the MCP SDK behind these loads when the first server is configured, not before
    from tools.mcp.connection import ServerConnection
    from tools.mcp.tool import McpTool
    from tools.registry import ToolRegistry

StatusListener = Callable[[ServerStatus], None]


class McpManager:
    def __init__(self, servers: Iterable[McpServerSettings], secret_lookup: SecretLookup | None = None, *,
                 policy: RestartPolicy = DEFAULT_RESTART_POLICY, connect_timeout: float | None = None) -> None:
        self.secret_lookup = secret_lookup
        self.policy = policy
        self.connect_timeout = connect_timeout
        self._listeners: list[StatusListener] = []
        self._connections: dict[str, ServerConnection] = {}
        self._tools: dict[tuple[str, str], McpTool] = {}  # (server, remote name) -> tool, kept across restarts
        self._configure(servers)

    def _configure(self, servers: Iterable[McpServerSettings]) -> None:
        extra = {} if self.connect_timeout is None else {"connect_timeout": self.connect_timeout}
        servers = list(servers)
        if servers:
            from tools.mcp.connection import ServerConnection
        for settings in servers:
            self._connections[settings.name] = ServerConnection(
                settings, self.secret_lookup, policy=self.policy, on_change=self._changed, **extra)

    def add_listener(self, listener: StatusListener) -> None:
        """Called with a server's status whenever it changes (in the event loop's thread)."""
        self._listeners.append(listener)

    def remove_listener(self, listener: StatusListener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _changed(self, connection: ServerConnection) -> None:
        status = connection.status()
        for listener in list(self._listeners):
            listener(status)

    # --- lifecycle ----------------------------------------------------------------------------------
    def start(self) -> None:
        """Start connecting every enabled server in the background; needs a running event loop."""
        for connection in self._connections.values():
            connection.start()

    async def wait_ready(self, seconds: float) -> None:
        import asyncio  # with the first server, not when the window reads its (maybe empty) list

        waits = [c.wait_settled() for c in self._connections.values() if c.settings.enabled]
        if waits:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(seconds):
                    await asyncio.gather(*waits)

    async def reconfigure(self, servers: Iterable[McpServerSettings]) -> None:
        """Apply changed settings: every server is stopped and the new list started."""
        await self.aclose()
        self._connections.clear()
        self._tools.clear()
        self._configure(servers)
        self.start()

    async def reconnect(self, name: str) -> None:
        """Stop one server and connect it again (the Preferences tab's Reconnect); unknown names are ignored."""
        connection = self._connections.get(name)
        if connection is not None:
            await connection.reconnect()

    async def aclose(self) -> None:
        import asyncio

        await asyncio.gather(*(c.stop() for c in self._connections.values()))

    def kill_now(self) -> None:
        """SIGKILL every stdio server at once (Parley is quitting without cleaning up: a second Ctrl+C)."""
        for connection in self._connections.values():
            connection.kill_now()

    # --- what the UI and the registry read ----------------------------------------------------------
    def statuses(self) -> list[ServerStatus]:
        return [c.status() for c in self._connections.values()]

    def tools(self) -> list[McpTool]:
        """The tools of every server listed so far (a server that is down keeps its tools; they say so)."""
        taken: set[str] = set()
        result: list[McpTool] = []
        for connection in self._connections.values():
            for remote in connection.tools:
                key = (connection.name, remote.name)
                tool = self._tools.get(key)
                if tool is None or tool.remote is not remote:
                    from tools.mcp.tool import McpTool

                    tool = McpTool(name=_unique(exposed_name(connection.name, remote.name), taken),
                                   connection=connection, remote=remote)
                    self._tools[key] = tool
                taken.add(tool.name)
                result.append(tool)
        return result

    def register_into(self, registry: ToolRegistry) -> list[str]:
        """Add the MCP tools to a run's registry; a name already taken there is skipped. Returns the names."""
        added = []
        for tool in self.tools():
            if registry.get(tool.name) is None:
                registry.register(tool)
                added.append(tool.name)
        return added


async def probe_server(settings: McpServerSettings, secret_lookup: SecretLookup | None = None,
                       seconds: float = 15.0) -> ServerStatus:
    """Connect to one server once, list its tools and disconnect: the "Test" of a server being configured."""
    manager = McpManager([settings.model_copy(update={"enabled": True})], secret_lookup,
                         policy=RestartPolicy(max_attempts=0))
    manager.start()
    try:
        await manager.wait_ready(seconds)
        [status] = manager.statuses()
    finally:
        await manager.aclose()
    return status


def summary(statuses: Iterable[ServerStatus]) -> str:
    """One line for a status bar: ``MCP: 2/3 running``; empty when no server is enabled."""
    enabled = [s for s in statuses if s.state != "disabled"]
    if not enabled:
        return ""
    running = sum(s.state == "running" for s in enabled)
    return f"MCP: {running}/{len(enabled)} running"


def _unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    number = 2
    while True:
        suffix = f"_{number}"
        candidate = name[:64 - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
        number += 1
