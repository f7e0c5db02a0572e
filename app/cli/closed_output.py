"""What ``parley`` does when the reader of its output goes away (``parley chat ... | head -1``).

Python ignores SIGPIPE, so a write to a closed pipe raises BrokenPipeError wherever the CLI happens to be
writing: deep in a streaming run, in a history listing. Nobody is left to read a message, so the command ends
quietly with the exit status a shell reports for a process killed by SIGPIPE (128 + 13), which ``set -o
pipefail`` scripts recognise. Standard output is pointed at the null device first, so the interpreter's final
flush of what is still buffered cannot raise the same error again at exit.
"""

from __future__ import annotations

import os
import sys

EXIT_CLOSED_OUTPUT = 141


def quiet_after_closed_output() -> int:
    """Silence standard output for the rest of the process and return the exit status to end with."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.__stdout__.fileno() if sys.__stdout__ is not None else 1)
        os.close(null)
    except (OSError, ValueError):  # no file descriptor behind stdout (embedded use): nothing to silence
        pass
    return EXIT_CLOSED_OUTPUT
