"""Exit codes and the usage error shared by the ``parley`` subcommands."""

from __future__ import annotations

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_NO_ANSWER = 3  # the run ended well but the model sent no answer text (app/cli/answer_watch.py)
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """Bad command-line input; printed as one line and exit code 2."""
