"""A whole file the user asked for (an export, a usage CSV) written atomically: a temporary file beside it, then
a rename, so a failed write leaves the old file or none, never half of one. Shared by the CLI's ``parley export``
and the window's File menu and usage window, which is why it lives at app/'s root and not in app/cli/.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from app.errors import EnvironmentProblem, describe_os_error


def write_file_atomically(path: Path, text: str) -> None:
    temp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        temp.write_text(text, encoding="utf-8")
        os.replace(temp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            temp.unlink(missing_ok=True)
        raise EnvironmentProblem(f"could not write {path} ({describe_os_error(exc)})") from exc
