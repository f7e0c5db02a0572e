"""What the app and the widgets are told about one MCP server (its state, a message and its tools), and the
policy by which a server that exits is started again.

Kept apart from ``connection.py`` so that showing a status (the inspector, Preferences > MCP servers) or making
a manager with no server does not import the MCP SDK, which is slow to import and needed only once a server is
started.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

ServerState = Literal["disabled", "starting", "running", "restarting", "failed", "stopped"]
SecretLookup = Callable[[str], str | None]


@dataclass(frozen=True)
class ServerStatus:
    name: str
    transport: str
    state: ServerState
    message: str | None = None
    tools: tuple[str, ...] = ()  # the server's own tool names
    restarts: int = 0


@dataclass(frozen=True)
class RestartPolicy:
    """How a server that exits is started again: delays double from ``first_delay_s`` up to ``max_delay_s``;
    after ``max_attempts`` failures in a row it stays ``failed`` until the settings change. A connection that
    stayed up ``stable_after_s`` resets the count."""

    first_delay_s: float = 1.0
    max_delay_s: float = 30.0
    max_attempts: int = 5
    stable_after_s: float = 60.0

    def delay(self, attempt: int) -> float:
        return min(self.first_delay_s * 2 ** (attempt - 1), self.max_delay_s)


DEFAULT_RESTART_POLICY = RestartPolicy()
