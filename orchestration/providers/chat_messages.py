"""One message mapper for the three OpenAI-style chat formats: Chat Completions, Cohere v2 and Ollama's chat.

All three send a list of role messages: ``system``, ``user``, ``assistant`` with ``tool_calls``, and ``tool``
results. What differs is small, and is a ``ChatDialect``'s fields: how a user turn's content is written, an
assistant turn's content and reasoning, how a call's arguments travel and whether a call carries an id, and
how a tool result names its call. Every dispatch over message, part and attachment types here ends in
``unmapped`` (mypy checks it as ``typing.assert_never``), so an unknown type is an ``UnmappedPartError``,
never a part silently left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from orchestration.messages import (
    AssistantMessage,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
    unmapped,
    user_content_items,
)

OPENAI_STYLE = "OpenAI-style chat"  # the format named in an UnmappedPartError from the shared pieces


@dataclass(frozen=True)
class AssistantParts:
    """An assistant turn's parts, each type in its own list, in order."""

    text: list[TextPart] = field(default_factory=list)
    reasoning: list[ReasoningPart] = field(default_factory=list)
    calls: list[ToolCallPart] = field(default_factory=list)

    @property
    def joined_text(self) -> str:
        return "".join(p.text for p in self.text)

    @property
    def joined_reasoning(self) -> str:
        return "".join(p.text for p in self.reasoning)


def assistant_parts(message: AssistantMessage, wire_format: str) -> AssistantParts:
    parts = AssistantParts()
    for part in message.parts:
        match part:
            case TextPart():
                parts.text.append(part)
            case ReasoningPart():
                parts.reasoning.append(part)
            case ToolCallPart():
                parts.calls.append(part)
            case _:
                unmapped(part, wire_format)
    return parts


def openai_user(message: UserMessage) -> dict[str, Any]:
    """Plain text stays a string; with attachments, content parts: ``text`` and ``image_url`` with a data URL
    (Chat Completions; Cohere v2 takes the same)."""
    if not message.attachments:
        return {"role": "user", "content": message.content}
    content = user_content_items(message, text=lambda text: {"type": "text", "text": text},
                                 image=lambda image: {"type": "image_url", "image_url": {"url": image.data_url()}},
                                 wire_format=OPENAI_STYLE)
    return {"role": "user", "content": content}


def raw_arguments(call: ToolCallPart) -> str:
    """The arguments as streamed; none at all is an empty object."""
    return call.arguments or "{}"


@dataclass(frozen=True)
class ChatDialect:
    """How one OpenAI-style format writes its messages."""

    name: str  # the wire format, named in an UnmappedPartError
    assistant: Callable[[AssistantMessage], dict[str, Any]]  # an assistant turn's fields besides role and calls
    user: Callable[[UserMessage], dict[str, Any]] = openai_user
    arguments: Callable[[ToolCallPart], str | dict[str, Any]] = raw_arguments
    call_ids: bool = True  # a call is ``{"id", "type": "function", "function"}``; else only ``{"function"}``
    result_key: Literal["tool_call_id", "tool_name"] = "tool_call_id"  # how a tool result names its call


def _call(call: ToolCallPart, dialect: ChatDialect) -> dict[str, Any]:
    function = {"name": call.name, "arguments": dialect.arguments(call)}
    return {"id": call.id, "type": "function", "function": function} if dialect.call_ids else {"function": function}


def chat_messages(messages: list[Message], dialect: ChatDialect) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    for message in messages:
        match message:
            case SystemMessage():
                wire.append({"role": "system", "content": message.content})
            case UserMessage():
                wire.append(dialect.user(message))
            case AssistantMessage():
                out = {"role": "assistant", **dialect.assistant(message)}
                calls = assistant_parts(message, dialect.name).calls
                if calls:
                    out["tool_calls"] = [_call(c, dialect) for c in calls]
                wire.append(out)
            case ToolResultMessage():
                linked = message.call_id if dialect.result_key == "tool_call_id" else message.name
                wire.append({"role": "tool", dialect.result_key: linked, "content": message.content})
            case _:
                unmapped(message, dialect.name)
    return wire
