"""Whole files written atomically: a temporary file beside the target, then a rename, so a failed write leaves the
old file or none, never half of one. Each write has its own temporary file (a random name, created exclusively),
so two writers at once (two processes, or two threads of one) never write into each other's temporary file: the
last rename wins and the file is always one writer's whole text. Shared by the CLI's ``parley export``, the
window's File menu and usage window (``write_file_atomically``) and the small caches in the data folder
(``replace_text``: gpu_support.json, the GGUF info cache, the key index), which is why it lives at app/'s root.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from app.errors import EnvironmentProblem, describe_os_error


def replace_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file unique to this call, then rename it over ``path``;
    raises OSError (the temporary file removed) when that fails. The temporary file is created exclusively with
    the usual permissions (the umask's, as a plain write would give; ``mkstemp``'s 0600 would make an export
    private), under a random name no other writer uses."""
    temp = path.with_name(f".{path.name}.{os.urandom(8).hex()}.tmp")
    created = False
    try:
        with temp.open("x", encoding="utf-8") as handle:
            created = True
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        if created:
            with contextlib.suppress(OSError):
                temp.unlink()
        raise


def write_file_atomically(path: Path, text: str) -> None:
    """``replace_text`` for a file the user asked for: a failure is an EnvironmentProblem naming the file."""
    try:
        replace_text(path, text)
    except OSError as exc:
        raise EnvironmentProblem(f"could not write {path} ({describe_os_error(exc)})") from exc
