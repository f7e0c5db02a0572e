"""Parley's tools: the registry and the built-in tools the chat loop can offer a model.

The loop (``orchestration``) never imports this package; it is handed a ``ToolSet``, and
``ToolRegistry`` is the one it gets. Tools are built only on ``orchestration.tool_api``, so this
package depends on the loop's contract and not the other way round.

``default_registry()`` is the starting point for the app: a fresh registry holding the built-in
tools, to which callers may register more (MCP tools, search) without affecting other registries.
"""

from __future__ import annotations

from tools.builtin import builtin_tools
from tools.registry import DuplicateToolError, Tool, ToolRegistry, UnknownToolError

__all__ = [
    "DuplicateToolError",
    "Tool",
    "ToolRegistry",
    "UnknownToolError",
    "builtin_tools",
    "default_registry",
]


def default_registry() -> ToolRegistry:
    """A new registry with every built-in tool registered."""
    return ToolRegistry(builtin_tools())
