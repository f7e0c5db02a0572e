"""What the three file tools share: the path argument, turning refusals into error results, running the
blocking file work off the event loop.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from orchestration.tool_api import ToolOutput
from tools.files.workspace import PathRefused

MAX_PATH_CHARS = 1024


class FileToolError(Exception):
    """A request the file tool cannot serve (missing file, binary file, bad pattern); the message says why."""


async def run_file_work(work: Callable[[], ToolOutput], stop: threading.Event | None = None) -> ToolOutput:
    """``work`` in a worker thread; refusals and OS errors become error results naming the problem.

    A thread cannot be killed, so when the caller gives up (a timeout, a cancelled run) ``stop`` is set for
    ``work`` to notice and end early; otherwise the thread would run on, and keep the process from exiting.
    """
    import asyncio  # loaded with the run's event loop, not when the tools are built or listed

    try:
        return await asyncio.to_thread(work)
    except asyncio.CancelledError:
        if stop is not None:
            stop.set()
        raise
    except (PathRefused, FileToolError) as exc:
        return ToolOutput(text=str(exc), is_error=True)
    except PermissionError as exc:
        return ToolOutput(text=f"Permission denied: {exc.filename or exc}.", is_error=True)
    except OSError as exc:
        return ToolOutput(text=f"Could not read {exc.filename or 'the file'}: {exc.strerror or exc}.",
                          is_error=True)


def error_data(kind: str, path: str, message: str) -> dict[str, Any]:
    return {"kind": kind, "path": path, "error": message}
