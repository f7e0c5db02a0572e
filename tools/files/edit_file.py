"""``edit_file``: replace one exact, unique snippet of a text file in a read-write workspace folder.

The snippet must occur exactly once, so the model has to quote enough of the file to say where the change
goes; none or several occurrences are refused with the count. Only UTF-8 text files up to
``max_edit_file_bytes`` are edited (an undecodable file would be damaged by re-encoding it). Like
``write_file`` it asks by default, showing the diff, and writes atomically.
"""

from __future__ import annotations

from pydantic import Field

from orchestration.tool_api import ToolContext, ToolOutput
from tools.arguments import ToolArguments
from tools.files.change import FileChanges, PlannedChange, change_summary
from tools.files.common import MAX_PATH_CHARS, FileToolError, run_file_work
from tools.files.preview import preview_or_refusal
from tools.files.settings import WorkspaceSettings
from tools.files.text import human_size, looks_binary
from tools.files.workspace import Workspace
from tools.files.writing_tool import writing_tool
from tools.registry import Tool

NAME = "edit_file"


class EditFileArguments(ToolArguments):
    path: str = Field(max_length=MAX_PATH_CHARS, description="File to change, relative to the workspace.")
    old_text: str = Field(min_length=1, description="The exact text to replace; it must occur exactly once in "
                          "the file (include surrounding lines to make it unique).")
    new_text: str = Field(description="The text that takes its place ('' deletes it).")


class EditFile:
    def __init__(self, changes: FileChanges) -> None:
        self.changes = changes

    def plan(self, arguments: EditFileArguments) -> PlannedChange:
        target = self.changes.target(arguments.path)
        limit = self.changes.settings.max_edit_file_bytes
        before = self.changes.current(target, limit)
        if before is None:
            raise FileToolError(f"{target.shown} does not exist; create it with write_file.")
        if before.data is None:
            raise FileToolError(f"{target.shown} is {human_size(before.size)}; edit_file changes files up to "
                                f"{human_size(limit)} (max_edit_file_bytes).")
        if looks_binary(before.data[:8192]):
            raise FileToolError(f"{target.shown} is a binary file; edit_file changes only text files.")
        try:
            text = before.data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FileToolError(f"{target.shown} is not valid UTF-8 (byte {exc.start}); edit_file changes only "
                                "UTF-8 text files.") from None
        count = text.count(arguments.old_text)
        if count == 0:
            raise FileToolError(f"old_text was not found in {target.shown}; read the file and quote it exactly "
                                "(spaces, indentation and line ends count).")
        if count > 1:
            raise FileToolError(f"old_text occurs {count} times in {target.shown}; include more of the "
                                "surrounding text so it occurs exactly once.")
        after = text.replace(arguments.old_text, arguments.new_text, 1).encode("utf-8")
        self.changes.check_size(NAME, len(after))
        return PlannedChange(target, before, after, change_summary("Edit", target, before, after))

    def _edit(self, arguments: EditFileArguments) -> ToolOutput:
        change = self.plan(arguments)
        self.changes.commit(change)
        old_lines, new_lines = arguments.old_text.count("\n") + 1, arguments.new_text.count("\n") + 1
        text = (f"Edited {change.target.shown}: replaced {old_lines} line{'s' if old_lines != 1 else ''} with "
                f"{new_lines} (the file is now {human_size(len(change.after))}).")
        return ToolOutput(text=text, data={"kind": "file_edit", "path": change.target.shown,
                                           "bytes": len(change.after)})

    async def __call__(self, arguments: EditFileArguments, context: ToolContext) -> ToolOutput:
        return await run_file_work(lambda: self._edit(arguments))

    async def preview(self, arguments: EditFileArguments) -> str:
        return await preview_or_refusal(lambda: self.changes.preview(self.plan(arguments)))


def edit_file_tool(workspace: Workspace, settings: WorkspaceSettings) -> Tool:
    changes = FileChanges(workspace, settings)
    tool = EditFile(changes)
    description = (f"Change a text file in a read-write folder of the user's workspace ({changes.describe()}) "
                   "by replacing one exact snippet (old_text, which must occur exactly once) with new_text. Read "
                   "the file first to quote it exactly.")
    return writing_tool(NAME, description, EditFileArguments, tool.__call__, tool.preview)
