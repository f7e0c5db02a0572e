"""Settings for the workspace file tools: which folders they may read, which of those they may also change
(``writable``), whether each reading call needs approval, and every limit, with defaults.

The app's settings embed this model (Preferences > Workspace). With no folder chosen the file tools are not
offered at all.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

DEFAULT_MAX_READ_BYTES = 20_000  # file text returned by one read_file call; more is read by line range
DEFAULT_MAX_READ_LINES = 2_000
DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024  # larger files are not opened at all
DEFAULT_MAX_LIST_ENTRIES = 500
DEFAULT_MAX_SEARCH_RESULTS = 100
DEFAULT_MAX_SEARCH_FILES = 5_000
DEFAULT_MAX_SEARCH_FILE_BYTES = 2 * 1024 * 1024
DEFAULT_MAX_WRITE_BYTES = 1024 * 1024  # a file write_file or edit_file leaves behind, at most
DEFAULT_MAX_EDIT_FILE_BYTES = 1024 * 1024  # edit_file opens files up to this size
DEFAULT_MAX_PREVIEW_LINES = 400  # lines of the diff or preview an approval shows


class WorkspaceSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    folders: list[Path] = Field(default_factory=list, description="folders the file tools may read; empty "
                                "turns the file tools off")
    writable: list[Path] = Field(default_factory=list, description="folders (each also in folders) the write "
                                 "tools may change; empty: no write tools")
    approval: Literal["ask", "allow"] = Field("ask", description="ask: every call needs the user's approval "
                                              "(refused in runs that cannot ask); allow: run without asking")
    max_read_bytes: int = Field(DEFAULT_MAX_READ_BYTES, ge=1_000, description="text returned per read_file call")
    max_read_lines: int = Field(DEFAULT_MAX_READ_LINES, ge=10, description="lines returned per read_file call")
    max_file_bytes: int = Field(DEFAULT_MAX_FILE_BYTES, ge=1024, description="files larger than this are not read")
    max_list_entries: int = Field(DEFAULT_MAX_LIST_ENTRIES, ge=10)
    max_search_results: int = Field(DEFAULT_MAX_SEARCH_RESULTS, ge=1, description="matching lines per search")
    max_search_files: int = Field(DEFAULT_MAX_SEARCH_FILES, ge=1, description="files examined per search")
    max_search_file_bytes: int = Field(DEFAULT_MAX_SEARCH_FILE_BYTES, ge=1024,
                                       description="larger files are skipped by search_files")
    max_write_bytes: int = Field(DEFAULT_MAX_WRITE_BYTES, ge=1024, description="size of a file the write tools "
                                 "leave behind")
    max_edit_file_bytes: int = Field(DEFAULT_MAX_EDIT_FILE_BYTES, ge=1024, description="edit_file opens files up "
                                     "to this size")
    max_preview_lines: int = Field(DEFAULT_MAX_PREVIEW_LINES, ge=10, description="lines of diff an approval shows")

    @field_validator("folders", "writable")
    @classmethod
    def _absolute(cls, folders: list[Path]) -> list[Path]:
        return [normalized_folder(folder) for folder in folders]

    @model_validator(mode="after")
    def _writable_are_folders(self) -> Self:
        stray = [str(folder) for folder in self.writable if folder not in self.folders]
        if stray:
            raise ValueError(f"writable folders must also be workspace folders; not one: {', '.join(stray)}")
        return self


def normalized_folder(folder: Path | str) -> Path:
    """A configured folder as the tools compare it: ``~`` expanded, absolute, ``..`` and ``.`` folded."""
    return Path(os.path.normpath(Path(folder).expanduser().absolute()))
