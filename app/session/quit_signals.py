"""SIGTERM and Ctrl+C (SIGINT) quit the window in order, as File > Quit does.

Without handlers SIGTERM ended ``parley`` at once: the unsent composer text was lost, the answer streaming then was
saved only as far as its last checkpoint, and the MCP servers and the engine were killed by the kernel (their
launchers ask for that) instead of being stopped. Ctrl+C in the terminal that started the window raised
KeyboardInterrupt inside whatever Qt callback ran next. From the moment the session's asyncio loop exists, both
signals ask for the orderly quit instead (app/session/quit_order.py); a second one while it runs is ignored, as
the quit is bounded by ``QUIT_CLOSE_WAIT_S``. Before the session opens there is nothing to wind down and the
default handling stays. The loop is woken through its signal wakeup descriptor, so no polling timer is needed.

The session's loop starts when first needed, not with the session (app/session/qt_asyncio.py, issue 17's idle
memory). Until then ``BeforeLoop`` does the same without asyncio: the signal's wakeup descriptor is one end of a
socket pair whose other end a Qt socket notifier watches, and the quit is asked for from that notifier's slot,
never from inside whatever Python code the signal interrupted. When the loop starts, the window hands the
signals over to it (``BeforeLoop.close`` and then ``install``).
"""

from __future__ import annotations

import contextlib
import logging
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

QUIT_SIGNALS = (signal.SIGTERM, signal.SIGINT)

log = logging.getLogger(__name__)


class BeforeLoop:
    """``QUIT_SIGNALS`` routed to ``quit_requested`` through Qt's event loop, while no asyncio loop exists."""

    def __init__(self, quit_requested: Callable[[], None]) -> None:
        import socket

        from PySide6.QtCore import QSocketNotifier

        self.quit_requested = quit_requested
        self._asked = False
        self._read, self._write = socket.socketpair()
        self._read.setblocking(False)
        self._write.setblocking(False)
        self._previous_fd = signal.set_wakeup_fd(self._write.fileno())
        self._previous = {number: signal.signal(number, self._noted) for number in QUIT_SIGNALS}
        self._notifier = QSocketNotifier(self._read.fileno(), QSocketNotifier.Type.Read)
        self._notifier.activated.connect(self._woken)

    def _noted(self, _number: int, _frame: object) -> None:
        self._asked = True  # run by Python at its next instruction; the wakeup byte brings Qt to _woken

    def _woken(self) -> None:
        with contextlib.suppress(BlockingIOError):
            self._read.recv(4096)
        if self._asked:
            self._asked = False
            self.quit_requested()

    def close(self) -> None:
        """Give the signals back as they were (the loop's ``install`` then takes them)."""
        self._notifier.setEnabled(False)
        signal.set_wakeup_fd(self._previous_fd)
        for number, handler in self._previous.items():
            signal.signal(number, handler)
        self._read.close()
        self._write.close()


def install(loop: asyncio.AbstractEventLoop, quit_requested: Callable[[], None]) -> None:
    """Route ``QUIT_SIGNALS`` to ``quit_requested`` on ``loop`` (where the platform's loop supports it)."""
    for number in QUIT_SIGNALS:
        try:
            loop.add_signal_handler(number, quit_requested)
        except (NotImplementedError, RuntimeError, ValueError) as problem:  # Windows, or not the main thread
            log.info("signal %s keeps its default handling: %s", signal.Signals(number).name, problem)
