"""Reading and atomically replacing one file inside a workspace folder without ever following a symbolic link.

``Workspace.resolve`` checks a path once, by name. Between that check and the write a folder along the path could
be swapped for a link that leaves the workspace, so the write tools do not open the resolved path by name: they
start from a descriptor of the workspace folder itself and open each folder below it with ``O_NOFOLLOW``
(``openat``-style, through ``dir_fd``), creating missing ones on the way when asked. A link anywhere along the
path, or a component that is not a folder, ends the walk with a clear error.

The file itself is written as a new temporary file in the same folder (``O_CREAT | O_EXCL | O_NOFOLLOW``),
flushed to disk, given the old file's permissions, and renamed over the target. A rename replaces the directory
entry and never follows a link, so a reader sees the old file or the new one, never half of one; a failed write
leaves the old file as it was; and a hard link to the old file (perhaps from outside the workspace) keeps the
old content rather than being changed through the workspace.

Only regular files are read or replaced: folders, devices, FIFOs and sockets are refused before they are opened
for writing, and read with ``O_NONBLOCK`` so a FIFO swapped in cannot hang the worker thread.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePath

from tools.files.common import FileToolError
from tools.files.text import human_size

_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
NEW_FILE_MODE = 0o666  # narrowed by the umask, as any program's new file
NEW_FOLDER_MODE = 0o777


@dataclass(frozen=True)
class Existing:
    """The target as it is now: its size and permissions, and its bytes when they were read."""

    size: int
    mode: int
    data: bytes | None  # None when larger than the read limit


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


@contextmanager
def parent_folder(root: Path, relative: PurePath, shown: str, *, create: bool) -> Iterator[int | None]:
    """A descriptor of the folder holding ``root / relative``, reached without following links; None when a
    folder along the way is missing and ``create`` is false."""
    descriptor = os.open(root, _DIRECTORY_FLAGS)
    try:
        walked = PurePath()
        for part in relative.parts[:-1]:
            walked /= part
            try:
                following = os.open(part, _DIRECTORY_FLAGS, dir_fd=descriptor)
            except FileNotFoundError:
                if not create:
                    os.close(descriptor)
                    descriptor = -1
                    yield None
                    return
                os.mkdir(part, NEW_FOLDER_MODE, dir_fd=descriptor)
                following = os.open(part, _DIRECTORY_FLAGS, dir_fd=descriptor)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise FileToolError(f"{shown}: {walked.as_posix()} is not a folder inside the workspace (a "
                                        "file, or a symbolic link, which the write tools never follow).") from None
                raise
            os.close(descriptor)
            descriptor = following
        yield descriptor
    finally:
        if descriptor >= 0:
            os.close(descriptor)


def existing(folder: int, name: str, shown: str, *, read_limit: int) -> Existing | None:
    """The regular file ``name`` in ``folder`` (its bytes if at most ``read_limit``), None if there is none;
    anything else there is refused."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(info.st_mode):
        raise FileToolError(f"{shown} is {_kind(info.st_mode)}; the write tools change only regular files.")
    if info.st_size > read_limit:
        return Existing(size=info.st_size, mode=stat.S_IMODE(info.st_mode), data=None)
    handle = os.open(name, _READ_FLAGS, dir_fd=folder)
    try:
        opened = os.fstat(handle)
        if not stat.S_ISREG(opened.st_mode):  # swapped since the stat above
            raise FileToolError(f"{shown} is {_kind(opened.st_mode)}; the write tools change only regular files.")
        chunks: list[bytes] = []
        remaining = read_limit + 1
        while remaining > 0:
            chunk = os.read(handle, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    finally:
        os.close(handle)
    data = b"".join(chunks)
    if len(data) > read_limit:
        return Existing(size=len(data), mode=stat.S_IMODE(opened.st_mode), data=None)
    return Existing(size=len(data), mode=stat.S_IMODE(opened.st_mode), data=data)


def replace_atomically(folder: int, name: str, data: bytes, shown: str, mode: int | None) -> None:
    """``name`` in ``folder`` becomes a regular file holding ``data``, all at once (temporary file + rename)."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise FileToolError(f"{shown} is {_kind(info.st_mode)}; the write tools change only regular files.")
    temporary = f".parley-{secrets.token_hex(6)}.tmp"
    handle = os.open(temporary, _TEMP_FLAGS, NEW_FILE_MODE, dir_fd=folder)
    try:
        try:
            view = memoryview(data)
            while view:
                written = os.write(handle, view)
                view = view[written:]
            if mode is not None:
                os.fchmod(handle, mode)
            os.fsync(handle)
        finally:
            os.close(handle)
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary, dir_fd=folder)
        raise
    with contextlib.suppress(OSError):  # some file systems cannot sync a folder; the data is already synced
        os.fsync(folder)  # the rename itself reaches the disk


def describe_size_limit(what: str, size: int, limit: int, setting: str) -> str:
    return f"{what} is {human_size(size)}; the limit is {human_size(limit)} ({setting})."
