"""Ctrl+C for ``parley chat``: the first press stops the run, a second one quits at once.

The first press cancels the run task (the loop closes the stream, prints and saves ``done: cancelled`` with the
partial answer) and the command then winds down as usual, MCP servers stopped in order. Should that winding
down take too long, or when no run is going on (connecting to MCP servers, cleaning up after the run), a press
quits at once: every MCP server still running is killed and the process exits with code 130. What was saved
stays saved; the database is written in transactions and survives an abrupt exit.

A plain ``signal.signal`` handler rather than the event loop's: it is in force for the whole command,
including the steps ``asyncio.Runner`` runs before and after the run, and ``Runner`` then leaves SIGINT alone.
The handler only schedules the cancellation on the loop (``call_soon_threadsafe``, which is safe here).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from app.cli.cli_common import EXIT_INTERRUPTED

STOPPING = "parley: stopping; press Ctrl+C again to quit at once"
QUITTING = "parley: quitting at once"


class Interrupts:
    def __init__(self) -> None:
        self.presses = 0
        self._run: asyncio.Task[Any] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._before_exit: list[Callable[[], None]] = []

    def before_exit(self, action: Callable[[], None]) -> None:
        """Run ``action`` (it must be quick and not block) before quitting at once, e.g. killing child servers."""
        self._before_exit.append(action)

    @contextlib.contextmanager
    def watching(self, task: asyncio.Task[Any]) -> Iterator[None]:
        """While inside, the first press cancels ``task`` (the run)."""
        self._run, self._loop = task, task.get_loop()
        try:
            yield
        finally:
            self._run = self._loop = None

    @contextlib.contextmanager
    def installed(self) -> Iterator[Interrupts]:
        if sys.platform == "win32" or not _in_main_thread():
            yield self
            return
        previous = signal.signal(signal.SIGINT, self._handle)
        try:
            yield self
        finally:
            signal.signal(signal.SIGINT, previous)

    def _handle(self, signum: int, frame: object) -> None:
        self.presses += 1
        run, loop = self._run, self._loop
        if self.presses == 1 and run is not None and loop is not None and not run.done():
            _say(STOPPING)
            loop.call_soon_threadsafe(run.cancel)
            return
        self.quit_now()

    def quit_now(self) -> None:
        _say(QUITTING)
        for action in self._before_exit:
            with contextlib.suppress(Exception):
                action()
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        os._exit(EXIT_INTERRUPTED)


def _say(message: str) -> None:
    with contextlib.suppress(Exception):
        sys.stderr.write(message + "\n")
        sys.stderr.flush()


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()
