"""The tool registry: named tools with pydantic argument models, async handlers and loop metadata.

A tool's argument model is its contract with the model: its JSON schema is the spec the model sees, and
validation errors become messages the model can act on. Names are unique; registering a name twice is an
error, not an override.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from orchestration.tool_api import RunnableTool, ToolArgumentsError, ToolContext, ToolOutput, ToolSpec

if TYPE_CHECKING:  # annotations only: the event models load with the loop, not with a tool listing
    from orchestration.events import ToolCategory, ToolVisibility

Handler = Callable[[Any, ToolContext], Awaitable[ToolOutput | str]]
Preview = Callable[[Any], Awaitable[str | None]]
"""What a call would do, in words the user reads before approving it (the write tools' diff)."""


class DuplicateToolError(ValueError):
    pass


class UnknownToolError(KeyError):
    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown tool"


def _describe_validation(error: ValidationError) -> str:
    problems = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"]) or "arguments"
        problems.append(f"{where}: {item['msg']}")
    return "; ".join(problems)


def _clean_schema(schema: Any, *, in_properties: bool = False) -> Any:
    """The JSON schema without pydantic's ``title`` annotations, which only cost tokens.

    Keys of a ``properties`` mapping are argument names, so an argument called ``title`` is kept.
    """
    if isinstance(schema, dict):
        return {
            k: _clean_schema(v, in_properties=(k == "properties" and not in_properties))
            for k, v in schema.items()
            if in_properties or k != "title"
        }
    if isinstance(schema, list):
        return [_clean_schema(v) for v in schema]
    return schema


@dataclass
class Tool:
    name: str
    description: str
    arguments: type[BaseModel]
    handler: Handler
    category: ToolCategory = "other"
    visibility: ToolVisibility = "primary"
    parallel_safe: bool = True
    needs_approval: bool = False
    timeout: float | None = None
    max_output_chars: int | None = None
    preview: Preview | None = None

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("_", "").replace("-", "").isalnum() or len(self.name) > 64:
            raise ValueError(f"tool name {self.name!r} must be 1-64 letters, digits, '_' or '-'")
        if not inspect.iscoroutinefunction(self.handler):
            raise TypeError(f"tool {self.name}: the handler must be an async function")

    def spec(self) -> ToolSpec:
        schema = _clean_schema(self.arguments.model_json_schema())
        schema.setdefault("properties", {})
        return ToolSpec(name=self.name, description=self.description, parameters=schema)

    def validate(self, arguments: dict[str, Any]) -> Any:
        try:
            return self.arguments.model_validate(arguments)
        except ValidationError as exc:
            raise ToolArgumentsError(_describe_validation(exc)) from None

    async def invoke(self, arguments: Any, context: ToolContext) -> ToolOutput | str:
        return await self.handler(arguments, context)

    async def approval_preview(self, arguments: Any) -> str | None:
        """The text an approval shows for these (validated) arguments; None: their JSON is shown."""
        return await self.preview(arguments) if self.preview is not None else None


class ToolRegistry:
    """Tools by name; satisfies the loop's ``ToolSet``."""

    def __init__(self, tools: Iterable[RunnableTool] = ()) -> None:
        self._tools: dict[str, RunnableTool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: RunnableTool) -> RunnableTool:
        if tool.name in self._tools:
            raise DuplicateToolError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool
        return tool

    def unregister(self, name: str) -> None:
        self._tools.pop(name, None)

    def get(self, name: str) -> RunnableTool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __iter__(self) -> Iterator[RunnableTool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def resolve(self, selection: str | Iterable[str] | None) -> list[str]:
        """Names from ``"all"``, ``"none"``, a comma-separated string or a list; unknown names raise."""
        if selection is None or selection == "none":
            return []
        if selection == "all":
            return self.names()
        items = selection.split(",") if isinstance(selection, str) else list(selection)
        names = [n.strip() for n in items if n.strip()]
        unknown = [n for n in names if n not in self._tools]
        if unknown:
            available = ", ".join(self.names())
            raise UnknownToolError(f"unknown tool(s): {', '.join(unknown)}. Available: {available}")
        return list(dict.fromkeys(names))

    def specs(self, names: list[str] | None = None) -> list[ToolSpec]:
        chosen = self.names() if names is None else [n for n in names if n in self._tools]
        return [self._tools[n].spec() for n in chosen]
