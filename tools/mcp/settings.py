"""One MCP server as the user configured it: how to start or reach it, and which values are secret.

The app's settings file embeds a list of these (app/settings/model.py). Secret values are never stored here:
``secret_env`` and ``secret_headers`` only name the variables and headers whose values live in the keyring,
under ``mcp:<server>:<NAME>`` (see ``secret_entry``).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

SERVER_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$"
ENV_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
SECRET_PREFIX = "mcp:"

McpTransport = Literal["stdio", "http"]
DEFAULT_CALL_TIMEOUT_S = 60.0  # how long one tool call may wait for the server's answer
MAX_CALL_TIMEOUT_S = 3_600.0


def secret_entry(server: str, name: str) -> str:
    """The keyring entry holding one secret environment variable or header of a server."""
    return f"{SECRET_PREFIX}{server}:{name}"


class McpServerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    name: str = Field(pattern=SERVER_NAME_PATTERN, description="letters, digits, '_' or '-'; the prefix of its "
                      "tools' names")
    transport: McpTransport = Field("stdio", description="stdio (a command Parley starts) or http (streamable "
                                    "HTTP at a URL)")
    command: str | None = Field(None, description="stdio: the program to start")
    args: list[str] = Field(default_factory=list, description="stdio: its arguments")
    env: dict[str, str] = Field(default_factory=dict, description="stdio: extra non-secret environment variables")
    secret_env: list[str] = Field(default_factory=list, description="stdio: environment variables whose values "
                                  "are in the keyring (mcp:<server>:<VAR>)")
    cwd: str | None = Field(None, description="stdio: the working directory (default: Parley's)")
    url: str | None = Field(None, description="http: the server's endpoint URL")
    headers: dict[str, str] = Field(default_factory=dict, description="http: extra non-secret headers")
    secret_headers: list[str] = Field(default_factory=list, description="http: headers whose values are in the "
                                      "keyring (mcp:<server>:<Header>)")
    enabled: bool = True
    call_timeout: float = Field(DEFAULT_CALL_TIMEOUT_S, gt=0, le=MAX_CALL_TIMEOUT_S,
                                description="seconds one tool call may wait for the server's answer; used for "
                                "this server's tools instead of limits.tool_timeout")

    @model_validator(mode="after")
    def _consistent(self) -> McpServerSettings:
        if self.transport == "stdio" and not (self.command and self.command.strip()):
            raise ValueError(f"MCP server {self.name!r}: a stdio server needs a command")
        if self.transport == "http" and not (self.url or "").startswith(("http://", "https://")):
            raise ValueError(f"MCP server {self.name!r}: an http server needs a URL starting with http:// or https://")

        bad = [v for v in [*self.env, *self.secret_env] if not re.fullmatch(ENV_NAME_PATTERN, v)]
        if bad:
            raise ValueError(f"MCP server {self.name!r}: not valid environment variable names: {', '.join(bad)}")
        clash = sorted(set(self.env) & set(self.secret_env)) + sorted(
            {h.lower() for h in self.headers} & {h.lower() for h in self.secret_headers})
        if clash:
            raise ValueError(f"MCP server {self.name!r}: {', '.join(clash)} is both a plain and a secret value")
        return self
