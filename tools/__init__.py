"""Parley's tools: the registry and the tools the chat loop can offer a model.

The loop (``orchestration``) never imports this package; it is handed a ``ToolSet``, and
``ToolRegistry`` is the one it gets. Tools are built only on ``orchestration.tool_api``, so this
package depends on the loop's contract and not the other way round.

``default_registry()`` is the starting point for the app: a fresh registry holding the built-in tools, the web
tools (``web_search``, ``web_fetch``; DuckDuckGo needs no key) and, when the user chose workspace folders, the
file tools. Callers may register more (MCP tools) without affecting other registries.

The names load on first use (PEP 562), so that importing one light module of the package (a settings model, a
server's status) does not import every tool with its libraries.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.lazy_names import lazy_names

if TYPE_CHECKING:
    from tools.builtin import builtin_tools
    from tools.files import WorkspaceSettings, workspace_tools
    from tools.registry import DuplicateToolError, Tool, ToolRegistry, UnknownToolError
    from tools.web import FetchSettings, SearchSettings, SecretLookup, no_secrets, web_tools

_HOMES = {
    "builtin_tools": "tools.builtin", "WorkspaceSettings": "tools.files", "workspace_tools": "tools.files",
    "DuplicateToolError": "tools.registry", "Tool": "tools.registry", "ToolRegistry": "tools.registry",
    "UnknownToolError": "tools.registry", "FetchSettings": "tools.web", "SearchSettings": "tools.web",
    "SecretLookup": "tools.web", "no_secrets": "tools.web", "web_tools": "tools.web",
}


__getattr__ = lazy_names(__name__, _HOMES, globals())


__all__ = [
    "DuplicateToolError",
    "FetchSettings",
    "SearchSettings",
    "SecretLookup",
    "Tool",
    "ToolRegistry",
    "UnknownToolError",
    "WorkspaceSettings",
    "builtin_tools",
    "default_registry",
    "no_secrets",
    "web_tools",
    "workspace_tools",
]


def default_registry(search: SearchSettings | None = None, fetch: FetchSettings | None = None,
                     workspace: WorkspaceSettings | None = None,
                     secret_lookup: SecretLookup | None = None) -> ToolRegistry:
    """A new registry with the built-in and web tools, plus the file tools when workspace folders are chosen.

    Without arguments: default settings (DuckDuckGo search, no keys, no workspace).
    """
    from tools.builtin import builtin_tools
    from tools.files import WorkspaceSettings, workspace_tools
    from tools.registry import ToolRegistry
    from tools.web import no_secrets, web_tools

    registry = ToolRegistry(builtin_tools())
    for tool in web_tools(search, fetch, secret_lookup or no_secrets):
        registry.register(tool)
    for tool in workspace_tools(workspace or WorkspaceSettings()):
        registry.register(tool)
    return registry
