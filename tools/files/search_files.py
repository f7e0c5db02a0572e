"""``search_files``: lines matching a text (or a regular expression) in the workspace's text files.

The walk stays inside the workspace: folder links are not followed, file links are followed only when their
target is inside the workspace, and version-control, cache and virtual-environment folders
(``SKIPPED_FOLDERS``) are skipped. Binary files and files larger than ``max_search_file_bytes`` are skipped.
At most ``max_search_files`` files are examined and ``max_search_results`` matching lines returned; the result
says when either cap was reached. The walk runs in a worker thread; a pattern is at most
``MAX_PATTERN_CHARS`` long and only the first ``MAX_LINE_CHARS`` of each line are matched.

A regular expression with nested repetition (``(a|a)+$``) can take exponential time on one short line, and
the standard ``re`` engine can be neither interrupted nor timed out (it holds the GIL, so not even Ctrl+C gets
through). Patterns are therefore matched with the ``regex`` package, which takes a ``timeout`` and releases
the GIL while it matches: one line may take at most ``MAX_LINE_MATCH_SECONDS`` (the pattern is then refused as
too slow) and the whole search at most ``MAX_SEARCH_SECONDS`` (the matches found so far are returned). When
the awaiting task is cancelled (the loop's tool timeout, Stop, Ctrl+C) the walk stops at the next line.
"""

from __future__ import annotations

import fnmatch
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from orchestration.tool_api import ToolContext, ToolOutput
from tools.arguments import ToolArguments
from tools.files.common import MAX_PATH_CHARS, FileToolError, run_file_work
from tools.files.settings import WorkspaceSettings
from tools.files.text import decode_line, looks_binary, read_sample
from tools.files.workspace import Workspace, WorkspaceFolder
from tools.registry import Tool

if TYPE_CHECKING:  # the regex package loads at the first search, not when the tool is built or listed
    import regex

NAME = "search_files"
MAX_PATTERN_CHARS = 200
MAX_GLOB_CHARS = 100
MAX_LINE_CHARS = 2_000  # of each line, matched and ...
SHOWN_LINE_CHARS = 200  # ... shown in a result
MAX_LINE_MATCH_SECONDS = 1.0  # one line; ordinary patterns take microseconds on 2,000 characters
MAX_SEARCH_SECONDS = 20.0  # the whole search; below the loop's default 30 s tool timeout
SKIPPED_FOLDERS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox",
                             ".mypy_cache", ".pytest_cache", ".ruff_cache", ".idea"})


class SearchFilesArguments(ToolArguments):
    query: str = Field(max_length=MAX_PATTERN_CHARS, description="Text to find (or a regular expression when "
                       "regex is true).")
    path: str = Field(".", max_length=MAX_PATH_CHARS, description="Folder (or file) to search, relative to the "
                      "workspace.")
    glob: str | None = Field(None, max_length=MAX_GLOB_CHARS, description="Only files whose name matches, e.g. "
                             "'*.py'; a pattern with '/' is matched against the path.")
    regex: bool = Field(False, description="Treat query as a Python regular expression.")
    case_sensitive: bool = False

    @field_validator("query")
    @classmethod
    def _non_empty(cls, value: str) -> str:
        if not value.strip():
            raise PydanticCustomError("empty_query", "search_files needs a non-empty query")
        return value


class PatternTooSlow(FileToolError):
    """One line took longer than ``MAX_LINE_MATCH_SECONDS`` to match: the pattern backtracks catastrophically."""


@dataclass
class _Search:
    pattern: regex.Pattern[str]
    query: str
    glob: str | None
    max_results: int
    max_files: int
    max_file_bytes: int
    cancelled: threading.Event = field(default_factory=threading.Event)
    deadline: float = 0.0  # time.monotonic() when the whole search must end
    matches: list[dict[str, Any]] = field(default_factory=list)
    files_examined: int = 0
    stopped: str | None = None  # which cap ended the search early

    def out_of_time(self) -> bool:
        """Sets ``stopped`` when the search was cancelled or used up its time."""
        if self.cancelled.is_set():
            self.stopped = "the search was cancelled"
        elif time.monotonic() >= self.deadline:
            self.stopped = f"the search took {MAX_SEARCH_SECONDS:g} s (the limit)"
        return self.stopped is not None

    def matches_line(self, line: str, where: str) -> bool:
        """Whether ``line`` matches, within the per-line and the whole search's time limits."""
        if self.out_of_time():
            return False
        allowed = min(MAX_LINE_MATCH_SECONDS, self.deadline - time.monotonic())
        try:
            return self.pattern.search(line, timeout=allowed, concurrent=True) is not None
        except TimeoutError:
            if allowed < MAX_LINE_MATCH_SECONDS:
                self.stopped = f"the search took {MAX_SEARCH_SECONDS:g} s (the limit)"
                return False
            raise PatternTooSlow(
                f"The regular expression {self.query!r} took longer than {MAX_LINE_MATCH_SECONDS:g} s to match one "
                f"line ({where}), so the search was stopped (limit: {MAX_LINE_MATCH_SECONDS:g} s per line). Nested "
                "or overlapping repetition such as (a|a)+ or (a+)+ can take exponential time; simplify the pattern, "
                "or set regex to false to search for the text as written.") from None


def _pattern(arguments: SearchFilesArguments) -> regex.Pattern[str]:
    import regex

    flags = regex.VERSION0 if arguments.case_sensitive else regex.VERSION0 | regex.IGNORECASE
    source = arguments.query if arguments.regex else regex.escape(arguments.query)
    try:
        return regex.compile(source, flags)
    except regex.error as exc:
        raise FileToolError(f"{arguments.query!r} is not a valid regular expression ({exc}); set regex to false "
                            "to search for the text as written.") from None


class SearchFiles:
    def __init__(self, workspace: Workspace, settings: WorkspaceSettings) -> None:
        self.workspace = workspace
        self.settings = settings

    def _wanted(self, search: _Search, relative: str, name: str) -> bool:
        if search.glob is None:
            return True
        target = relative if "/" in search.glob else name
        return fnmatch.fnmatch(target, search.glob)

    def _scan_file(self, search: _Search, folder: WorkspaceFolder, path: Path) -> None:
        """Adds the file's matching lines; sets ``stopped`` when a cap is reached."""
        if path.is_symlink():
            target = Path(os.path.realpath(path))
            if not target.is_relative_to(folder.real):
                return
        relative = path.relative_to(folder.real).as_posix()
        if not self._wanted(search, relative, path.name):
            return
        try:
            if not path.is_file() or path.stat().st_size > search.max_file_bytes or looks_binary(read_sample(path)):
                return
            if search.files_examined >= search.max_files:
                search.stopped = f"examined {search.max_files:,} files (the limit)"
                return
            search.files_examined += 1
            shown = self.workspace.shown(folder, path)
            with path.open("rb") as handle:
                for number, raw in enumerate(handle, start=1):
                    line = decode_line(raw[: MAX_LINE_CHARS * 4])[:MAX_LINE_CHARS]
                    if search.matches_line(line, f"{shown}:{number}"):
                        if len(search.matches) >= search.max_results:
                            search.stopped = f"found more than {search.max_results} matching lines (the limit)"
                            return
                        search.matches.append({"path": shown, "line": number,
                                               "text": line.strip()[:SHOWN_LINE_CHARS]})
                    elif search.stopped:
                        return
        except OSError:
            return  # unreadable (permissions, vanished): skipped like a binary file

    def _walk(self, search: _Search, folder: WorkspaceFolder, top: Path) -> None:
        if top.is_file():
            self._scan_file(search, folder, top)
            return
        for directory, subfolders, files in os.walk(top, followlinks=False):
            subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED_FOLDERS)
            for name in sorted(files):
                if search.out_of_time():
                    return
                self._scan_file(search, folder, Path(directory) / name)
                if search.stopped:
                    return

    def _new_search(self, arguments: SearchFilesArguments) -> _Search:
        settings = self.settings
        return _Search(pattern=_pattern(arguments), query=arguments.query, glob=arguments.glob,
                       max_results=settings.max_search_results, max_files=settings.max_search_files,
                       max_file_bytes=settings.max_search_file_bytes)

    def _search(self, arguments: SearchFilesArguments, search: _Search) -> ToolOutput:
        search.deadline = time.monotonic() + MAX_SEARCH_SECONDS
        if self.workspace.is_top(arguments.path):
            targets = [(f, f.real) for f in self.workspace.folders]
            where = "the workspace"
        else:
            resolved = self.workspace.resolve(arguments.path)
            if not resolved.real.exists():
                raise FileToolError(f"{arguments.path!r} does not exist in the workspace.")
            targets = [(resolved.folder, resolved.real)]
            where = resolved.shown
        for folder, top in targets:
            self._walk(search, folder, top)
            if search.stopped:
                break
        count = len(search.matches)
        plural = "" if count == 1 else "es"
        header = (f"{count} match{plural} for {arguments.query!r} in {where} "
                  f"({search.files_examined} files searched):")
        lines = [header, *(f"{m['path']}:{m['line']}: {m['text']}" for m in search.matches)]
        if not count:
            lines = [f"No matches for {arguments.query!r} in {where} ({search.files_examined} files searched)."]
        if search.stopped:
            lines.append(f"[stopped early: {search.stopped}; narrow the search with path or glob]")
        data = {"kind": "file_search", "query": arguments.query, "path": where, "matches": search.matches,
                "files_searched": search.files_examined, "truncated": search.stopped is not None}
        return ToolOutput(text="\n".join(lines), data=data)

    async def __call__(self, arguments: SearchFilesArguments, context: ToolContext) -> ToolOutput:
        try:
            search = self._new_search(arguments)
        except FileToolError as exc:
            return ToolOutput(text=str(exc), is_error=True)
        return await run_file_work(lambda: self._search(arguments, search), stop=search.cancelled)


def search_files_tool(workspace: Workspace, settings: WorkspaceSettings) -> Tool:
    return Tool(
        name=NAME,
        description="Find lines containing a text (or matching a regular expression) in the text files of the "
        f"user's workspace. Returns path:line: text, at most {settings.max_search_results} matches.",
        arguments=SearchFilesArguments,
        handler=SearchFiles(workspace, settings).__call__,
        category="file",
        visibility="secondary",
        parallel_safe=True,
        needs_approval=settings.approval == "ask",
    )
