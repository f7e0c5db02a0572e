"""The engine interface: one request shape in, one typed provider-event stream out.

Every wire-format adapter implements ``ChatAdapter``. The loop talks to nothing else, so it never sees
provider JSON, and a scripted fake model (tests) fits the same slot.

Every model here builds its validator when it is first used (``defer_build``), not at import: the window
imports this module at start but needs no message or provider event until a conversation is opened or a
message sent (issue 17, bench/RESULTS.md).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from orchestration.messages import AssistantMessage, Message, ToolCallPart
from orchestration.reasoning_effort import ReasoningEffort
from orchestration.tool_api import ToolSpec

if TYPE_CHECKING:
    from orchestration.providers.config import Capabilities

ModelFinish = Literal["stop", "length", "tool_calls", "content_filter", "error", "unknown"]


class NamedToolChoice(BaseModel):
    model_config = ConfigDict(defer_build=True, frozen=True)

    name: str


ToolChoice = Literal["auto", "none", "required"] | NamedToolChoice


class ModelRequest(BaseModel):
    model_config = ConfigDict(defer_build=True)

    model: str
    messages: list[Message]
    tools: list[ToolSpec] = Field(default_factory=list)
    tool_choice: ToolChoice = "auto"
    parallel_tool_calls: bool | None = None
    stream: bool = True
    max_output_tokens: int | None = None
    temperature: float | None = None
    reasoning_effort: ReasoningEffort | None = None
    response_format: dict[str, Any] | None = Field(
        None, description='JSON output, OpenAI-style: {"type": "json_object"} or {"type": "json_schema", '
                          '"json_schema": {"name": ..., "schema": {...}}}; adapters translate it')


class TokenUsage(BaseModel):
    model_config = ConfigDict(defer_build=True)

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0  # input tokens read from a cache (part of input_tokens)
    cache_write_tokens: int = 0  # input tokens written to a cache (part of input_tokens; Anthropic)
    raw: dict[str, Any] = Field(default_factory=dict, description="usage exactly as the provider sent it")


class _ProviderEvent(BaseModel):
    model_config = ConfigDict(defer_build=True, frozen=True)


class ResponseStarted(_ProviderEvent):
    type: Literal["response_started"] = "response_started"
    response_id: str | None = None
    model: str | None = None


class TextChunk(_ProviderEvent):
    type: Literal["text"] = "text"
    text: str


class ReasoningChunk(_ProviderEvent):
    type: Literal["reasoning"] = "reasoning"
    text: str


class ToolCallReady(_ProviderEvent):
    """A tool call whose name and arguments are complete."""

    type: Literal["tool_call"] = "tool_call"
    call: ToolCallPart


class UsageReport(_ProviderEvent):
    type: Literal["usage"] = "usage"
    usage: TokenUsage


class ResponseComplete(_ProviderEvent):
    """The last event of every successful model call: the whole assistant message as assembled."""

    type: Literal["response_complete"] = "response_complete"
    message: AssistantMessage
    finish_reason: ModelFinish
    native_finish_reason: str | None = None
    usage: TokenUsage | None = None


ProviderEvent = Annotated[
    ResponseStarted | TextChunk | ReasoningChunk | ToolCallReady | UsageReport | ResponseComplete,
    Field(discriminator="type"),
]


class ChatAdapter(Protocol):
    """A wire format bound to a provider. ``stream`` raises ``ProviderError`` subclasses on failure."""

    @property
    def provider_name(self) -> str: ...

    @property
    def capabilities(self) -> Capabilities:
        """What the provider accepts; the loop reads it (``for_model``) before every call."""
        ...

    def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]: ...

    async def aclose(self) -> None: ...
