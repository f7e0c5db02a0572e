"""Which tools to send when a provider accepts fewer than were offered (``Capabilities.max_tools``).

The rule is simple and predictable: tools the conversation has already used come first (most recently used
first), then the rest in the order they were offered (registry order). The chosen ones are sent in their
offered order, so the request stays stable from call to call (and provider prompt caches keep working).
"""

from __future__ import annotations

from collections.abc import Sequence

from orchestration.messages import AssistantMessage, Message
from orchestration.tool_api import ToolSpec


def used_tool_names(history: Sequence[Message]) -> list[str]:
    """Names of the tools the conversation called, most recent first, each once."""
    names: list[str] = []
    for message in reversed(history):
        if isinstance(message, AssistantMessage):
            for call in reversed(message.tool_calls):
                if call.name not in names:
                    names.append(call.name)
    return names


def select_tools(specs: Sequence[ToolSpec], history: Sequence[Message], limit: int) -> list[ToolSpec]:
    """At most ``limit`` of ``specs``: used ones first, then offered order; returned in offered order."""
    if len(specs) <= limit:
        return list(specs)
    rank = {name: i for i, name in enumerate(used_tool_names(history))}
    by_relevance = sorted(range(len(specs)), key=lambda i: (rank.get(specs[i].name, len(rank)), i))
    keep = sorted(by_relevance[:limit])
    return [specs[i] for i in keep]
