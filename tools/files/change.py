"""What the write tools share: which paths they may change, the planned change, its preview and its commit.

A change is planned twice from the same code: once for the approval (``preview``: path, sizes and a unified
diff the user reads before allowing the call) and once when the call runs, against the file as it is then, so
what is written is what the preview described unless the file changed in between. Paths are resolved by
``Workspace.resolve`` (confinement by name) and must lie in a folder the user made read-write; the bytes are
then read and written through ``confined_io`` (confinement by descriptor, no link followed).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import PurePath

from tools.files.common import FileToolError
from tools.files.confined_io import Existing, existing, parent_folder, replace_atomically
from tools.files.settings import WorkspaceSettings
from tools.files.text import human_size, looks_binary
from tools.files.workspace import PathRefused, ResolvedPath, Workspace

MAX_PREVIEW_LINE_CHARS = 300  # one diff line in a preview; longer lines are cut and marked


@dataclass(frozen=True)
class PlannedChange:
    target: ResolvedPath
    before: Existing | None  # None: the file does not exist yet
    after: bytes
    summary: str  # one line saying what the call does


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", errors="replace").splitlines(keepends=True)


def _cut(line: str) -> str:
    line = line.rstrip("\n")
    if len(line) > MAX_PREVIEW_LINE_CHARS:
        return f"{line[:MAX_PREVIEW_LINE_CHARS]}… [line cut: {len(line):,} characters]"
    return line


class FileChanges:
    def __init__(self, workspace: Workspace, settings: WorkspaceSettings) -> None:
        self.workspace = workspace
        self.settings = settings
        self.writable = set(settings.writable)

    def describe(self) -> str:
        """The read-write folders; says so when there is none."""
        return ", ".join(str(f.path) for f in self.workspace.folders if f.path in self.writable) or \
            "no read-write folder chosen"

    def target(self, path: str) -> ResolvedPath:
        """The resolved path, if it is a file path in a read-write folder."""
        resolved = self.workspace.resolve(path)
        if resolved.folder.path not in self.writable:
            raise PathRefused(f"{resolved.shown or path!r} is in {resolved.folder.path}, which is read-only; the "
                              f"write tools change files only in the read-write folders ({self.describe()}).")
        if resolved.real == resolved.folder.real:
            raise PathRefused(f"{path!r} is the workspace folder itself; name a file inside it.")
        return resolved

    def _relative(self, target: ResolvedPath) -> PurePath:
        return PurePath(target.real.relative_to(target.folder.real))

    def current(self, target: ResolvedPath, read_limit: int) -> Existing | None:
        relative = self._relative(target)
        with parent_folder(target.folder.real, relative, target.shown, create=False) as folder:
            if folder is None:
                return None
            return existing(folder, relative.name, target.shown, read_limit=read_limit)

    def check_size(self, tool: str, size: int) -> None:
        limit = self.settings.max_write_bytes
        if size > limit:
            raise FileToolError(f"{tool} would leave a file of {human_size(size)}; the limit is "
                                f"{human_size(limit)} (max_write_bytes). Write a smaller file.")

    def commit(self, change: PlannedChange) -> None:
        """Write the change; an OS failure (full disk, permissions) is reported as a write that left the file."""
        relative = self._relative(change.target)
        try:
            with parent_folder(change.target.folder.real, relative, change.target.shown, create=True) as folder:
                assert folder is not None
                mode = change.before.mode if change.before is not None else None
                replace_atomically(folder, relative.name, change.after, change.target.shown, mode)
        except FileToolError:
            raise
        except OSError as exc:
            raise FileToolError(f"Could not write {change.target.shown}: {exc.strerror or exc}. The file was left "
                                "as it was.") from None

    def preview(self, change: PlannedChange) -> str:
        """Path and sizes, then a unified diff of the change (cut at ``max_preview_lines``)."""
        before = change.before
        header = [change.summary]
        old: list[str] = []
        if before is not None and before.data is None:
            header.append(f"The current file ({human_size(before.size)}) is too large to compare; it will be "
                          "replaced as a whole.")
        elif before is not None and before.data is not None and looks_binary(before.data[:8192]):
            header.append(f"The current file is binary ({human_size(before.size)}); it will be replaced.")
        elif before is not None and before.data is not None:
            old = _lines(before.data)
        if before is not None and before.data == change.after:
            return "\n".join([*header, "No change: the file already holds exactly this text."])
        shown = change.target.shown
        diff = list(difflib.unified_diff(old, _lines(change.after), "/dev/null" if before is None else f"a/{shown}",
                                         f"b/{shown}", n=3))
        limit = self.settings.max_preview_lines
        body = [_cut(line) for line in diff[:limit]]
        if len(diff) > limit:
            body.append(f"[preview cut: {len(diff) - limit:,} more diff lines not shown (max_preview_lines)]")
        return "\n".join([*header, *body])


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def change_summary(verb: str, target: ResolvedPath, before: Existing | None, after: bytes) -> str:
    lines = f"{line_count(after):,} line{'' if line_count(after) == 1 else 's'}"
    if before is None:
        return f"{verb} {target.shown}: new file ({human_size(len(after))}, {lines}) in {target.folder.path}"
    return (f"{verb} {target.shown}: {human_size(before.size)} becomes {human_size(len(after))} ({lines}) in "
            f"{target.folder.path}")
