"""Confinement of file paths to the workspace folders the user chose.

Every path a model names is resolved before use and must end up inside a workspace folder:

* relative paths are taken from the workspace folder (with several folders, the first part of the path names
  the folder: ``notes/todo.md`` in the folder called ``notes``);
* ``..`` that climbs out of the folder is refused, and so is an absolute path outside every folder;
* the path is then resolved with ``os.path.realpath``, so a symbolic link anywhere along it is followed, and a
  path whose target lies outside the folder is refused as a link that leaves the workspace.

The reading tools open the resolved path, not the one the model wrote; a link someone else swaps between the
check and the open is outside what this guards for them. The write tools create only regular files and folders
(never links) and do guard against that swap: they reach the file through folder descriptors opened without
following links (``confined_io.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


class PathRefused(Exception):
    """The path is outside the workspace or unusable; the message says why."""


@dataclass(frozen=True)
class WorkspaceFolder:
    name: str  # how the model names it when there are several folders
    path: Path  # as configured, absolute and normalized
    real: Path  # with symbolic links resolved


@dataclass(frozen=True)
class ResolvedPath:
    folder: WorkspaceFolder
    real: Path  # the resolved path the tools open
    shown: str  # the path as the model should write it


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or path.is_relative_to(folder)


class Workspace:
    def __init__(self, folders: Iterable[Path]) -> None:
        self.folders: list[WorkspaceFolder] = []
        taken: set[str] = set()
        seen: set[Path] = set()
        for configured in folders:
            path = Path(os.path.normpath(Path(configured).expanduser().absolute()))
            real = Path(os.path.realpath(path))
            if real in seen:
                continue
            seen.add(real)
            base = path.name or "root"
            name, number = base, 2
            while name in taken:
                name, number = f"{base}-{number}", number + 1
            taken.add(name)
            self.folders.append(WorkspaceFolder(name=name, path=path, real=real))

    @property
    def several(self) -> bool:
        return len(self.folders) > 1

    def describe(self) -> str:
        """The folders, for descriptions and messages; says so when there is none (never an empty "()")."""
        return ", ".join(str(folder.path) for folder in self.folders) or "no folder chosen"

    def is_top(self, text: str) -> bool:
        """With several folders, '.' and '' mean the list of folders itself."""
        return self.several and text.strip() in ("", ".", "./")

    def shown(self, folder: WorkspaceFolder, real: Path) -> str:
        relative = real.relative_to(folder.real).as_posix()
        if self.several:
            return folder.name if relative == "." else f"{folder.name}/{relative}"
        return relative

    def _check(self, text: str, folder: WorkspaceFolder, lexical: Path) -> ResolvedPath:
        if not _inside(lexical, folder.path):
            raise PathRefused(f"{text!r} leads outside the workspace ('..' may not climb out of "
                              f"{folder.path}).")
        real = Path(os.path.realpath(lexical))
        if not _inside(real, folder.real):
            raise PathRefused(f"{text!r} is or passes through a symbolic link to {real}, which is outside the "
                              "workspace; links that leave the workspace are not followed.")
        return ResolvedPath(folder=folder, real=real, shown=self.shown(folder, real))

    def resolve(self, text: str) -> ResolvedPath:
        """The resolved path inside a workspace folder, or ``PathRefused`` saying why not."""
        if not self.folders:
            raise PathRefused("No workspace folder is chosen; choose one in Preferences > Workspace.")
        if "\x00" in text:
            raise PathRefused("The path contains a NUL character.")
        cleaned = text.strip()
        if cleaned.startswith("~"):
            raise PathRefused(f"{text!r}: '~' is not expanded; use a path inside the workspace ({self.describe()}).")
        candidate = Path(cleaned or ".")
        if candidate.is_absolute():
            lexical = Path(os.path.normpath(candidate))
            for folder in self.folders:
                if _inside(lexical, folder.path):
                    return self._check(text, folder, lexical)
            real = Path(os.path.realpath(lexical))
            for folder in self.folders:
                if _inside(real, folder.real):
                    return ResolvedPath(folder=folder, real=real, shown=self.shown(folder, real))
            raise PathRefused(f"{text!r} is outside the workspace; the file tools read only inside "
                              f"{self.describe()}.")
        folder = self.folders[0]
        parts = candidate.parts
        if self.several:
            if self.is_top(cleaned):
                raise PathRefused("'.' is the list of workspace folders, not a folder; name one of: "
                                  + ", ".join(f.name for f in self.folders) + ".")
            named = {f.name: f for f in self.folders}
            if parts[0] not in named:
                raise PathRefused(f"{text!r}: with several workspace folders, relative paths start with the "
                                  f"folder's name ({', '.join(named)}).")
            folder, parts = named[parts[0]], parts[1:]
        lexical = Path(os.path.normpath(folder.path.joinpath(*parts)))
        return self._check(text, folder, lexical)
