"""The workspace file tools: ``list_directory``, ``read_file`` and ``search_files``, read-only and confined to
the folders the user chose (``workspace.py``). With no folder chosen there are no file tools.
"""

from __future__ import annotations

from tools.files.list_directory import list_directory_tool
from tools.files.read_file import read_file_tool
from tools.files.search_files import search_files_tool
from tools.files.settings import WorkspaceSettings
from tools.files.workspace import PathRefused, Workspace
from tools.registry import Tool

__all__ = ["PathRefused", "Workspace", "WorkspaceSettings", "described_workspace_tools", "workspace_tools"]


def workspace_tools(settings: WorkspaceSettings) -> list[Tool]:
    """The file tools for the chosen folders; empty when no folder is chosen."""
    if not settings.folders:
        return []
    return described_workspace_tools(settings)


def described_workspace_tools(settings: WorkspaceSettings) -> list[Tool]:
    """The file tools as a model would see them, also with no folder chosen, for listings that show them as
    off (with no folder, every path they are given is refused)."""
    workspace = Workspace(settings.folders)
    return [list_directory_tool(workspace, settings), read_file_tool(workspace, settings),
            search_files_tool(workspace, settings)]
