"""An MCP server's tool as a ``RunnableTool``: its JSON schema is the spec, calls go to the server's session.

Arguments get a minimal check (an object, required names present, JSON types of the top-level properties);
the server validates the rest and its errors come back as results.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mcp import types

from orchestration.events import ToolCategory, ToolVisibility
from orchestration.tool_api import ToolArgumentsError, ToolContext, ToolOutput, ToolSpec
from tools.mcp.connection import CallTimedOut, ServerConnection, ServerNotRunning
from tools.mcp.content import result_output

MAX_DESCRIPTION_CHARS = 2_000  # of a server's tool description, sent with every request
LOOP_TIMEOUT_MARGIN_S = 10.0  # the loop's timeout for an MCP tool: the server's call_timeout plus this

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "array": (list,), "object": (dict,), "null": (type(None),),
}


def object_schema(listed: Any) -> dict[str, Any]:
    """A server's ``inputSchema`` as an object schema a provider accepts: ``properties`` an object of schemas and
    ``required`` a list of names, whatever the server sent; everything else is passed on for the server."""
    schema = dict(listed) if isinstance(listed, dict) else {}
    schema["type"] = "object"
    schema.pop("title", None)
    properties = schema.get("properties")
    schema["properties"] = {str(k): v for k, v in properties.items() if isinstance(v, dict | bool)} if isinstance(
        properties, dict) else {}
    required = schema.pop("required", None)
    if isinstance(required, list) and any(isinstance(n, str) for n in required):
        schema["required"] = list(dict.fromkeys(n for n in required if isinstance(n, str)))
    return schema


def _type_ok(value: Any, expected: Any) -> bool:
    names = [expected] if isinstance(expected, str) else expected if isinstance(expected, list) else []
    if not names:
        return True  # no type this check understands: the server decides
    for name in names:
        kinds = _JSON_TYPES.get(name) if isinstance(name, str) else None
        if kinds is None:
            return True  # a type this check does not know: the server decides
        if isinstance(value, bool) and name in ("integer", "number"):
            continue
        if isinstance(value, kinds) or (name == "integer" and isinstance(value, float) and value.is_integer()):
            return True
    return False


@dataclass
class McpTool:
    name: str
    connection: ServerConnection
    remote: types.Tool
    description: str = ""
    category: ToolCategory = "mcp"
    visibility: ToolVisibility = "primary"
    parallel_safe: bool = True
    needs_approval: bool = True
    timeout: float | None = None  # set from the server's call_timeout, which replaces the loop's tool_timeout
    max_output_chars: int | None = None  # the loop's tool_output_chars
    schema: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        text = (self.remote.description or self.remote.title or self.remote.name).strip()
        self.description = f"{text[:MAX_DESCRIPTION_CHARS]} (MCP server {self.connection.name})"
        self.schema = object_schema(self.remote.input_schema)
        # The connection ends a call at call_timeout with a message naming the server and the tool; the loop's
        # own cut comes later, only as a backstop.
        self.timeout = self.connection.settings.call_timeout + LOOP_TIMEOUT_MARGIN_S

    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=self.schema)

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        missing = [n for n in self.schema.get("required", []) if n not in arguments]
        if missing:
            raise ToolArgumentsError(f"missing required argument(s): {', '.join(missing)}")
        properties = self.schema.get("properties", {})
        for key, value in arguments.items():
            expected = properties.get(key, {}).get("type") if isinstance(properties.get(key), dict) else None
            if expected is not None and not _type_ok(value, expected):
                raise ToolArgumentsError(f"{key}: expected {expected}, got {type(value).__name__}")
        return arguments

    async def invoke(self, arguments: Any, context: ToolContext) -> ToolOutput:
        try:
            result = await self.connection.call(self.remote.name, arguments)
        except (ServerNotRunning, CallTimedOut) as exc:
            return ToolOutput(text=str(exc), is_error=True,
                              data={"kind": "mcp", "server": self.connection.name, "tool": self.remote.name})
        return result_output(result, self.connection.name, self.remote.name)
