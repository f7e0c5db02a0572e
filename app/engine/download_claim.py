"""One download of a model file at a time, across processes: a claim on ``<file>.part.lock`` beside it.

A download resumes into the fixed ``<file>.part`` (app/engine/download.py), so two downloads of the same file at
once (the window and ``parley local download``, or two windows) would append into the same part file: the copy
fails its checksum, is deleted for both, and the message blames the network. The claim is an exclusive,
non-blocking ``flock`` on the lock file; a second downloader is told at once instead. The holder removes the
lock file when done (so nothing is left beside the model), and a claimant that locked a file removed meanwhile
tries again on the new one. On a system without fcntl there is no claim (the race stays there).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

CLAIM_TRIES = 5  # a claimant loses a race with a finishing holder at most this often before giving up as busy


@contextlib.contextmanager
def claimed(lock_path: Path) -> Iterator[bool]:
    """Yield True while this process holds the claim on ``lock_path``, False when another holds it. A lock file
    that cannot be created (a folder that is not writable) yields True unclaimed: the download then fails on the
    same folder with its own message."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no claim (module docstring)
        yield True
        return
    for _ in range(CLAIM_TRIES):
        try:
            lock_path.parent.mkdir(parents=True, exist_ok=True)
            handle = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:
            yield True
            return
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(handle)
            yield False
            return
        try:
            current = os.stat(lock_path).st_ino
        except FileNotFoundError:
            current = None
        if current != os.fstat(handle).st_ino:  # the holder finished and removed the file we opened
            os.close(handle)
            continue
        try:
            yield True
        finally:
            with contextlib.suppress(OSError):
                lock_path.unlink()  # still held: the next claimant opens a new file
            os.close(handle)
        return
    yield False
