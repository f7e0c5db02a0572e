"""What the app and the widgets are told about one MCP server: its state, a message and its tools.

Kept apart from ``connection.py`` so that showing a status (the inspector, Preferences > MCP servers) does not
import the MCP SDK, which is slow to import and needed only once a server is started.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ServerState = Literal["disabled", "starting", "running", "restarting", "failed", "stopped"]


@dataclass(frozen=True)
class ServerStatus:
    name: str
    transport: str
    state: ServerState
    message: str | None = None
    tools: tuple[str, ...] = ()  # the server's own tool names
    restarts: int = 0
