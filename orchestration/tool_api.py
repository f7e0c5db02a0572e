"""The public tool API: what the loop needs from a tool, and what a tool may rely on.

``tools/`` builds its registry and built-in tools on these names only. The loop never imports ``tools/``;
it is handed something that satisfies ``ToolSet``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:  # annotations only: the event models load with the loop, not with a tool listing
    from orchestration.events import ToolCategory, ToolVisibility


class ToolSpec(BaseModel):
    """What the model is told about a tool: its name, purpose and JSON-schema parameters."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ToolOutput(BaseModel):
    """What a handler returns: text for the model, optional structured data for the UI panes."""

    text: str
    data: Any = None
    is_error: bool = False


class ToolArgumentsError(ValueError):
    """The arguments did not validate; the message is shown to the model so it can fix them."""


@dataclass
class ToolContext:
    """Per-call facts a handler may use."""

    run_id: str
    call_id: str
    conversation_id: str | None = None
    extras: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class RunnableTool(Protocol):
    name: str
    description: str
    category: ToolCategory
    visibility: ToolVisibility
    parallel_safe: bool
    needs_approval: bool
    timeout: float | None
    max_output_chars: int | None

    def spec(self) -> ToolSpec: ...

    def validate(self, arguments: dict[str, Any]) -> Any:
        """Validated arguments, or ToolArgumentsError with a message for the model."""
        ...

    async def invoke(self, arguments: Any, context: ToolContext) -> ToolOutput | str: ...


class ToolSet(Protocol):
    def get(self, name: str) -> RunnableTool | None: ...

    def names(self) -> list[str]: ...

    def specs(self, names: list[str] | None = None) -> list[ToolSpec]: ...


class EmptyToolSet:
    """No tools at all."""

    def get(self, name: str) -> RunnableTool | None:
        return None

    def names(self) -> list[str]:
        return []

    def specs(self, names: list[str] | None = None) -> list[ToolSpec]:
        return []
