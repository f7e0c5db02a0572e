"""What a process still holds after the window quit: its live child processes and the files it opened since a mark.

The quit tests' child scripts import this (they run with the checkout as their working folder) and print both after
``parley``'s entry point returns, so a test can assert that quitting left nothing running and nothing open.
"""

from __future__ import annotations

import contextlib
import os


def children() -> list[str]:
    """Process ids of this process's children that are not zombies (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            found.append(entry)
    return found


def open_files() -> dict[str, str]:
    """This process's open descriptors and what each points at."""
    found = {}
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):  # the listing's own descriptor, closed by now
            found[fd] = os.readlink(f"/proc/self/fd/{fd}")
    return found


def opened_since(before: dict[str, str]) -> list[str]:
    """What is open now that was not open (at that descriptor) in ``before``."""
    return sorted(target for fd, target in open_files().items() if before.get(fd) != target)
