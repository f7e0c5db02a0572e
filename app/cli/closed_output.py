"""Standard output closed by its reader (``parley usage --json | head``): exit quietly, as Unix tools do.

A reader that stops early closes the pipe; the next write or flush raises BrokenPipeError wherever it happens,
and the interpreter would print its traceback, then a second complaint when it flushes standard output on the
way out. Unix tools are killed by SIGPIPE instead and say nothing. Parley does not let the signal kill it (a
chat must still get to save its answer as interrupted, and the database to close), so the entry point catches
the error once for every command and exits with the status a shell reports for SIGPIPE, 128 + 13 = 141.

A BrokenPipeError that did not come from standard output (a tool server's pipe, a socket) is not this: it is
raised on, not hidden.
"""

from __future__ import annotations

import os
import sys

# What a shell reports for a process SIGPIPE ended (128 + signal 13), so `set -o pipefail` scripts see the same.
EXIT_CLOSED_OUTPUT = 141


def stdout_closed() -> bool:
    """Whether standard output's reader has gone: the pipe (or socket) reports an error or a hang-up. Without
    ``poll`` (Windows) a BrokenPipeError is taken to be standard output's."""
    import select

    try:
        fd = sys.__stdout__.fileno() if sys.__stdout__ is not None else 1
    except (OSError, ValueError):
        return True
    if not hasattr(select, "poll"):
        return True
    poller = select.poll()
    poller.register(fd, 0)  # no events asked for: errors and hang-ups are always reported
    return any(events & (select.POLLERR | select.POLLHUP | select.POLLNVAL) for _fd, events in poller.poll(0))


def quiet_exit() -> int:
    """After standard output was closed: point it at the null device, so the interpreter's last flush of what is
    still buffered does not fail again, and return EXIT_CLOSED_OUTPUT."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, sys.__stdout__.fileno() if sys.__stdout__ is not None else 1)
        finally:
            os.close(null)
    except (OSError, ValueError):
        pass  # nothing left to protect: the process exits next
    return EXIT_CLOSED_OUTPUT
