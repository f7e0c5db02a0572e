"""Exit codes and the usage error shared by the ``parley`` subcommands."""

from __future__ import annotations

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """Bad command-line input; printed as one line and exit code 2."""
