"""Provider-neutral conversation messages.

Adapters translate these to and from their wire formats. Opaque provider data (reasoning signatures,
encrypted reasoning, response ids) rides on the part or message it belongs to, so the next request can send
it back unchanged.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from orchestration.bounded_json import loads_bounded
from orchestration.events import ToolStatus


class TextPart(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["text"] = "text"
    text: str


class ReasoningPart(BaseModel):
    """Reasoning the model showed (or hid: ``text`` may be empty when only ``encrypted`` is present)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["reasoning"] = "reasoning"
    text: str = ""
    signature: str | None = None
    encrypted: str | None = Field(default=None, description="redacted or encrypted reasoning to send back")
    provider_format: str | None = Field(default=None, description="which wire format the opaque data is for")
    details: list[dict[str, Any]] = Field(default_factory=list, description="provider detail records, unchanged")


class ToolCallPart(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: str = Field(description="raw argument JSON exactly as streamed")
    opaque: dict[str, Any] = Field(default_factory=dict)

    def parsed_arguments(self) -> Any:
        """Arguments as JSON; an empty string means no arguments. Raises ValueError when not JSON."""
        if not self.arguments.strip():
            return {}
        return loads_bounded(self.arguments, what=f"the argument object for {self.name}")


AssistantPart = Annotated[TextPart | ReasoningPart | ToolCallPart, Field(discriminator="kind")]


class SystemMessage(BaseModel):
    role: Literal["system"] = "system"
    content: str


class UserMessage(BaseModel):
    role: Literal["user"] = "user"
    content: str


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    parts: list[AssistantPart] = Field(default_factory=list)
    response_id: str | None = None
    model: str | None = None
    provider_data: dict[str, Any] = Field(default_factory=dict)

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def reasoning(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, ReasoningPart))

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return [p for p in self.parts if isinstance(p, ToolCallPart)]


class ToolResultMessage(BaseModel):
    role: Literal["tool"] = "tool"
    call_id: str
    name: str
    content: str
    status: ToolStatus = "ok"


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")
]
