"""Problems in the user's environment (disk, files, keyring, a hand-edited file) explained, not raised as bugs.

``EnvironmentProblem`` is the base: the CLI prints one as a line and exits 1; the window shows it in a dialog.
Its message names what is wrong (the file, the keyring, the field) and what to do. The helpers word OS and
validation errors for those messages.
"""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the CLI imports this module before it knows whether it needs pydantic
    from pydantic import ValidationError

# How many validation errors are spelled out in a message; the rest are counted.
MAX_REPORTED_ERRORS = 3


class EnvironmentProblem(Exception):
    """Something outside Parley's control went wrong; ``str(exc)`` is written for the user."""


def describe_os_error(exc: OSError) -> str:
    """A short, plain reason for a file-system error ("the disk is full", "permission denied", ...)."""
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return "the disk is full"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    return exc.strerror or str(exc)


def _field_path(loc: tuple[int | str, ...]) -> str:
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(top level)"


def describe_validation_error(exc: ValidationError) -> str:
    errors = exc.errors()
    described = [f"{_field_path(e['loc'])}: {e['msg']}" for e in errors[:MAX_REPORTED_ERRORS]]
    more = len(errors) - len(described)
    return "; ".join(described) + (f" (and {more} more)" if more > 0 else "")
