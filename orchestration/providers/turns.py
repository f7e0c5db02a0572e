"""Role turns with consecutive same-role content merged, for the formats that want strictly alternating turns.

Anthropic Messages and Gemini both send a conversation as ``user`` and assistant turns (``assistant``/``model``)
whose items (content blocks, parts) of one role in a row go into one turn: tool results become items of a user
turn. The system prompt travels in its own request field, so system messages are left out here. The dispatch
over message types ends in ``unmapped``: an unknown type is an ``UnmappedPartError`` naming the format.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from orchestration.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolResultMessage,
    UserMessage,
    unmapped,
)

Items = list[dict[str, Any]]


def merged_turns(messages: list[Message], *, wire_format: str, items_key: str, assistant_role: str,
                 user: Callable[[UserMessage], Items], assistant: Callable[[AssistantMessage], Items],
                 tool_result: Callable[[ToolResultMessage], Items]) -> Items:
    """``{"role": ..., items_key: [...]}`` turns; a message with no items (an assistant turn with nothing the
    format sends back) adds nothing."""
    turns: Items = []

    def add(role: str, items: Items) -> None:
        if not items:
            return
        if turns and turns[-1]["role"] == role:
            turns[-1][items_key].extend(items)
        else:
            turns.append({"role": role, items_key: items})

    for message in messages:
        match message:
            case SystemMessage():
                pass  # sent in the request's own system field
            case UserMessage():
                add("user", user(message))
            case AssistantMessage():
                add(assistant_role, assistant(message))
            case ToolResultMessage():
                add("user", tool_result(message))
            case _:
                unmapped(message, wire_format)
    return turns
