"""Running a write tool's approval preview off the event loop, and saying plainly when the call would fail.

The user is asked before the call runs; a call that will be refused (a read-only folder, a link out of the
workspace, a snippet that is not unique) is still asked about, and its preview says why it will fail instead of
showing a diff.
"""

from __future__ import annotations

from collections.abc import Callable

from tools.files.common import FileToolError
from tools.files.workspace import PathRefused


async def preview_or_refusal(work: Callable[[], str]) -> str:
    def guarded() -> str:
        try:
            return work()
        except (PathRefused, FileToolError) as exc:
            return f"This call will fail: {exc}"
        except OSError as exc:
            return f"This call will fail: {exc.filename or 'the file'}: {exc.strerror or exc}."

    import asyncio  # loaded with the run's event loop, not when the tools are built or listed

    return await asyncio.to_thread(guarded)
