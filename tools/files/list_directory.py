"""``list_directory``: the folders and files in one workspace folder, with sizes, never leaving the workspace.

Folders come first, then files, each alphabetically; at most ``max_list_entries`` are shown. Symbolic links are
listed as links: one whose target is inside the workspace shows what it points to, one that leaves it is marked
and not followed. With several workspace folders, ``.`` lists the folders themselves.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import Field

from orchestration.tool_api import ToolContext, ToolOutput
from tools.arguments import ToolArguments
from tools.files.common import MAX_PATH_CHARS, FileToolError, run_file_work
from tools.files.settings import WorkspaceSettings
from tools.files.text import human_size
from tools.files.workspace import Workspace, WorkspaceFolder
from tools.registry import Tool

NAME = "list_directory"


class ListDirectoryArguments(ToolArguments):
    path: str = Field(".", max_length=MAX_PATH_CHARS, description="Folder to list, relative to the workspace "
                      "('.' for the workspace folder itself).")


def _describe(entry: os.DirEntry[str], folder: WorkspaceFolder, workspace: Workspace) -> dict[str, Any]:
    row: dict[str, Any] = {"name": entry.name, "type": "other", "size": None}
    if entry.is_symlink():
        target = Path(os.path.realpath(entry.path))
        if not (target == folder.real or target.is_relative_to(folder.real)):
            row.update(type="link", target=None)
            return row
        row["target"] = workspace.shown(folder, target)
    try:
        if entry.is_dir():
            row["type"] = "dir"
        elif entry.is_file():
            row.update(type="file", size=entry.stat().st_size)
    except OSError:
        pass  # a broken link or an entry that vanished: listed as "other"
    if entry.is_symlink() and row["type"] == "other":
        row["type"] = "link"
    return row


def _line(row: dict[str, Any]) -> str:
    name = row["name"] + ("/" if row["type"] == "dir" else "")
    if row.get("type") == "link" and row.get("target") is None:
        return f"{row['name']}@  -> outside the workspace (not followed)"
    detail = f"  {human_size(row['size'])}" if row["size"] is not None else ""
    link = f"  -> {row['target']}" if row.get("target") else ""
    return f"{name}{detail}{link}"


class ListDirectory:
    def __init__(self, workspace: Workspace, settings: WorkspaceSettings) -> None:
        self.workspace = workspace
        self.settings = settings

    def _folders(self) -> ToolOutput:
        rows = [{"name": f.name, "type": "dir", "size": None, "target": str(f.path)} for f in self.workspace.folders]
        text = "Workspace folders:\n" + "\n".join(f"{f.name}/  ({f.path})" for f in self.workspace.folders)
        return ToolOutput(text=text, data={"kind": "directory", "path": ".", "entries": rows, "truncated": False})

    def _list(self, path: str) -> ToolOutput:
        if self.workspace.is_top(path):
            return self._folders()
        resolved = self.workspace.resolve(path)
        if not resolved.real.exists():
            raise FileToolError(f"{path!r} does not exist in the workspace.")
        if not resolved.real.is_dir():
            raise FileToolError(f"{resolved.shown} is a file, not a folder; read it with read_file.")
        with os.scandir(resolved.real) as entries:
            rows = [_describe(entry, resolved.folder, self.workspace) for entry in entries]
        rows.sort(key=lambda r: (r["type"] != "dir", r["name"].casefold()))
        limit = self.settings.max_list_entries
        shown_rows, truncated = rows[:limit], len(rows) > limit
        folders = sum(1 for r in rows if r["type"] == "dir")
        header = f"Contents of {resolved.shown} ({folders} folders, {len(rows) - folders} other entries):"
        lines = [header, *(_line(r) for r in shown_rows)] if rows else [f"{resolved.shown} is empty."]
        if truncated:
            lines.append(f"[showing the first {limit} of {len(rows)} entries]")
        return ToolOutput(text="\n".join(lines), data={"kind": "directory", "path": resolved.shown,
                                                       "entries": shown_rows, "truncated": truncated})

    async def __call__(self, arguments: ListDirectoryArguments, context: ToolContext) -> ToolOutput:
        return await run_file_work(lambda: self._list(arguments.path))


def list_directory_tool(workspace: Workspace, settings: WorkspaceSettings) -> Tool:
    return Tool(
        name=NAME,
        description="List the folders and files (with sizes) in a folder of the user's workspace "
        f"({workspace.describe()}). Paths are relative to the workspace.",
        arguments=ListDirectoryArguments,
        handler=ListDirectory(workspace, settings).__call__,
        category="file",
        visibility="secondary",
        parallel_safe=True,
        needs_approval=settings.approval == "ask",
    )
