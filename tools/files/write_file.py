"""``write_file``: create a text file in a read-write workspace folder, or replace one when asked to.

Offered only when at least one folder is read-write, and asking the user by default: the approval shows the
path, the sizes and a diff (``change.py``). An existing file is replaced only with ``overwrite: true``, so a
model that guessed a new name wrong cannot silently wipe a file. Missing folders along the path are created.
The text is written as UTF-8, at most ``max_write_bytes``, atomically (``confined_io``).
"""

from __future__ import annotations

from pydantic import Field

from orchestration.tool_api import ToolContext, ToolOutput
from tools.arguments import ToolArguments
from tools.files.change import FileChanges, PlannedChange, change_summary, line_count
from tools.files.common import MAX_PATH_CHARS, FileToolError, run_file_work
from tools.files.preview import preview_or_refusal
from tools.files.settings import WorkspaceSettings
from tools.files.text import human_size
from tools.files.workspace import Workspace
from tools.files.writing_tool import writing_tool
from tools.registry import Tool

NAME = "write_file"


class WriteFileArguments(ToolArguments):
    path: str = Field(max_length=MAX_PATH_CHARS, description="File to write, relative to the workspace.")
    content: str = Field(description="The complete new text of the file (UTF-8).")
    overwrite: bool = Field(False, description="Replace the file if it exists (default: refuse to).")


class WriteFile:
    def __init__(self, changes: FileChanges) -> None:
        self.changes = changes

    def plan(self, arguments: WriteFileArguments) -> PlannedChange:
        target = self.changes.target(arguments.path)
        after = arguments.content.encode("utf-8")
        self.changes.check_size(NAME, len(after))
        before = self.changes.current(target, self.changes.settings.max_edit_file_bytes)
        if before is not None and not arguments.overwrite:
            raise FileToolError(f"{target.shown} already exists ({human_size(before.size)}); pass overwrite=true "
                                "to replace it, or change part of it with edit_file.")
        return PlannedChange(target, before, after, change_summary("Write", target, before, after))

    def _write(self, arguments: WriteFileArguments) -> ToolOutput:
        change = self.plan(arguments)
        self.changes.commit(change)
        created = change.before is None
        text = (f"{'Created' if created else 'Replaced'} {change.target.shown} ({human_size(len(change.after))}, "
                f"{line_count(change.after):,} lines).")
        return ToolOutput(text=text, data={"kind": "file_write", "path": change.target.shown,
                                           "bytes": len(change.after), "created": created})

    async def __call__(self, arguments: WriteFileArguments, context: ToolContext) -> ToolOutput:
        return await run_file_work(lambda: self._write(arguments))

    async def preview(self, arguments: WriteFileArguments) -> str:
        return await preview_or_refusal(lambda: self.changes.preview(self.plan(arguments)))


def write_file_tool(workspace: Workspace, settings: WorkspaceSettings) -> Tool:
    changes = FileChanges(workspace, settings)
    tool = WriteFile(changes)
    description = (f"Create a text file in a read-write folder of the user's workspace ({changes.describe()}), "
                   "or replace one with overwrite=true. Give the complete text; for a small change to an existing "
                   f"file use edit_file. At most {human_size(settings.max_write_bytes)}.")
    return writing_tool(NAME, description, WriteFileArguments, tool.__call__, tool.preview)
