"""``read_file``: the text of one workspace file, numbered by line, in ranges the model can ask for.

Binary files are refused, and so are files larger than ``max_file_bytes``. One call returns at most
``max_read_lines`` lines and ``max_read_bytes`` of text; when that cuts the range, the result says which
``start_line`` continues it. Lines are numbered so the model can refer to them and ask for exact ranges.
"""

from __future__ import annotations

from typing import Any, Self

from pydantic import Field, model_validator

from orchestration.tool_api import ToolContext, ToolOutput
from tools.arguments import ToolArguments
from tools.files.common import MAX_PATH_CHARS, FileToolError, run_file_work
from tools.files.settings import WorkspaceSettings
from tools.files.text import decode_line, human_size, looks_binary, read_sample
from tools.files.workspace import Workspace
from tools.registry import Tool

NAME = "read_file"
OUTPUT_OVERHEAD_CHARS = 500  # header, note and line numbers around the file text


class ReadFileArguments(ToolArguments):
    path: str = Field(max_length=MAX_PATH_CHARS, description="File to read, relative to the workspace.")
    start_line: int | None = Field(None, ge=1, description="First line to read (1-based; default 1).")
    end_line: int | None = Field(None, ge=1, description="Last line to read (inclusive; default: as far as the "
                                 "limits allow).")

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.start_line and self.end_line and self.end_line < self.start_line:
            raise ValueError(f"end_line ({self.end_line}) is before start_line ({self.start_line})")
        return self


class ReadFile:
    def __init__(self, workspace: Workspace, settings: WorkspaceSettings) -> None:
        self.workspace = workspace
        self.settings = settings

    def _read(self, arguments: ReadFileArguments) -> ToolOutput:
        settings = self.settings
        resolved = self.workspace.resolve(arguments.path)
        path, shown = resolved.real, resolved.shown
        if not path.exists():
            raise FileToolError(f"{arguments.path!r} does not exist in the workspace.")
        if path.is_dir():
            raise FileToolError(f"{shown} is a folder; list it with list_directory.")
        if not path.is_file():
            raise FileToolError(f"{shown} is not a regular file.")
        size = path.stat().st_size
        if size > settings.max_file_bytes:
            raise FileToolError(f"{shown} is {human_size(size)}; read_file opens files up to "
                                f"{human_size(settings.max_file_bytes)}.")
        if looks_binary(read_sample(path)):
            raise FileToolError(f"{shown} is a binary file ({human_size(size)}); read_file reads only text files.")
        start = arguments.start_line or 1
        end = arguments.end_line
        numbered: list[str] = []
        used_bytes = 0
        total = 0
        next_line: int | None = None  # where a cut range continues
        with path.open("rb") as handle:
            for total, raw in enumerate(handle, start=1):  # total ends as the line count
                if total < start or (end is not None and total > end) or next_line is not None:
                    continue
                note = ""
                if len(numbered) >= settings.max_read_lines or used_bytes + len(raw) > settings.max_read_bytes:
                    if numbered:
                        next_line = total
                        continue
                    note = f"  [line cut: it is {len(raw):,} bytes long]"  # one line longer than the budget
                    raw = raw[: settings.max_read_bytes]
                numbered.append(f"{total:>6}  {decode_line(raw)}{note}")
                used_bytes += len(raw)
        if total == 0:
            return ToolOutput(text=f"{shown} is empty.", data=self._data(shown, 0, 0, 0, False))
        if start > total:
            raise FileToolError(f"{shown} has only {total} lines; start_line {start} is past the end.")
        last = start + len(numbered) - 1
        header = f"{shown} (lines {start}-{last} of {total}):"
        lines = [header, *numbered]
        if next_line is not None:
            lines.append(f"[showing lines {start}-{last}; continue with start_line={next_line}]")
        return ToolOutput(text="\n".join(lines), data=self._data(shown, start, last, total, next_line is not None))

    @staticmethod
    def _data(shown: str, start: int, last: int, total: int, truncated: bool) -> dict[str, Any]:
        return {"kind": "file", "path": shown, "start_line": start, "end_line": last, "total_lines": total,
                "truncated": truncated}

    async def __call__(self, arguments: ReadFileArguments, context: ToolContext) -> ToolOutput:
        return await run_file_work(lambda: self._read(arguments))


def read_file_tool(workspace: Workspace, settings: WorkspaceSettings) -> Tool:
    return Tool(
        name=NAME,
        description="Read a text file in the user's workspace, with line numbers. Give start_line and end_line "
        f"to read part of a long file; one call returns at most {settings.max_read_lines:,} lines.",
        arguments=ReadFileArguments,
        handler=ReadFile(workspace, settings).__call__,
        category="file",
        visibility="secondary",
        parallel_safe=True,
        needs_approval=settings.approval == "ask",
        max_output_chars=settings.max_read_bytes + settings.max_read_lines * 8 + OUTPUT_OVERHEAD_CHARS,
    )
