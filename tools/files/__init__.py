"""The workspace file tools: ``list_directory``, ``read_file`` and ``search_files`` read inside the folders the
user chose, and ``write_file`` and ``edit_file`` change files in the folders the user made read-write, all
confined to those folders (``workspace.py``, ``confined_io.py``). With no folder chosen there are no file tools;
with no read-write folder there are no write tools.

The settings model and the workspace's confinement load with the package (the app's settings embed them); the
tools themselves, ``search_files`` with its regex engine among them, load when a tool list is built, so reading
the settings stays cheap (issue 17).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.lazy_names import lazy_names

if TYPE_CHECKING:
    from tools.files.settings import WorkspaceSettings
    from tools.files.workspace import PathRefused, Workspace
    from tools.registry import Tool

# The names load on first use (PEP 562): the settings model (tools.files.settings, which app/settings embeds) and
# the tool-name lists are read on every start, the tools themselves (with regex and their argument models) only
# when a registry is built.
_HOMES = {"WorkspaceSettings": "tools.files.settings", "PathRefused": "tools.files.workspace",
          "Workspace": "tools.files.workspace"}


__getattr__ = lazy_names(__name__, _HOMES, globals())


__all__ = [
    "READ_TOOLS",
    "WRITE_TOOLS",
    "PathRefused",
    "Workspace",
    "WorkspaceSettings",
    "described_workspace_tools",
    "workspace_tools",
]

READ_TOOLS = ("list_directory", "read_file", "search_files")
WRITE_TOOLS = ("write_file", "edit_file")


def workspace_tools(settings: WorkspaceSettings) -> list[Tool]:
    """The file tools for the chosen folders: none without a folder, the write tools only with a read-write one."""
    if not settings.folders:
        return []
    return [tool for tool in described_workspace_tools(settings)
            if tool.name in READ_TOOLS or settings.writable]


def described_workspace_tools(settings: WorkspaceSettings) -> list[Tool]:
    """Every file tool as a model would see it, also with no folder chosen, for listings that show them as off
    (with no folder, or no read-write one for the write tools, every path they are given is refused)."""
    from tools.files.edit_file import edit_file_tool
    from tools.files.list_directory import list_directory_tool
    from tools.files.read_file import read_file_tool
    from tools.files.search_files import search_files_tool
    from tools.files.workspace import Workspace
    from tools.files.write_file import write_file_tool

    workspace = Workspace(settings.folders)
    return [list_directory_tool(workspace, settings), read_file_tool(workspace, settings),
            search_files_tool(workspace, settings), write_file_tool(workspace, settings),
            edit_file_tool(workspace, settings)]
