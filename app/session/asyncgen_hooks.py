"""Asyncgen hooks for Parley's qasync loop, so async generators left unfinished are closed as tasks on it.

asyncio's own loops install ``sys.set_asyncgen_hooks`` while they run and close what is left with
``shutdown_asyncgens`` at the end (``asyncio.run`` does both). qasync installs none, so an async generator left
suspended (httpx's and httpcore's body streams, when a reader stops at a frame that is not JSON) was finalized by
the garbage collector outside any task: "async generator ignored GeneratorExit" and an anyio "cancel scope in a
different task" traceback on stderr. Here the first iteration of each async generator is tracked, a finalized one
is closed as a task on the loop, and ``shutdown`` closes those still open when the app quits.
"""

from __future__ import annotations

import asyncio
import sys
import weakref
from collections.abc import AsyncGenerator
from typing import Any

SHUTDOWN_S = 5.0  # at quit, how long the open generators may take to close before they are left


class AsyncGenHooks:
    """The hooks of one loop on the thread that runs it; ``install`` once, ``shutdown`` then ``uninstall``."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._open: weakref.WeakSet[AsyncGenerator[Any, Any]] = weakref.WeakSet()
        self._previous = sys.get_asyncgen_hooks()
        self._shut_down = False

    def install(self) -> None:
        self._previous = sys.get_asyncgen_hooks()
        sys.set_asyncgen_hooks(firstiter=self._first_iteration, finalizer=self._finalize)

    def uninstall(self) -> None:
        sys.set_asyncgen_hooks(*self._previous)

    def _first_iteration(self, agen: AsyncGenerator[Any, Any]) -> None:
        if not self._shut_down:
            self._open.add(agen)

    def _finalize(self, agen: AsyncGenerator[Any, Any]) -> None:
        self._open.discard(agen)
        if not self.loop.is_closed():  # the collector may run on any thread
            self.loop.call_soon_threadsafe(self.loop.create_task, agen.aclose())

    async def shutdown(self) -> None:
        """Close the generators still open (at quit, before the loop closes); a failure to close is reported to
        the loop's exception handler, as asyncio's ``shutdown_asyncgens`` does."""
        self._shut_down = True
        generators = list(self._open)
        self._open.clear()
        if not generators:
            return
        results = await asyncio.wait_for(
            asyncio.gather(*(agen.aclose() for agen in generators), return_exceptions=True), SHUTDOWN_S)
        for agen, result in zip(generators, results, strict=True):
            if isinstance(result, Exception):
                self.loop.call_exception_handler({
                    "message": f"an error occurred closing the async generator {agen!r} at quit",
                    "exception": result, "asyncgen": agen})
