"""SIGTERM and Ctrl+C (SIGINT) quit the window in order, as File > Quit does.

Without handlers SIGTERM ended ``parley`` at once: the unsent composer text was lost, the answer streaming then was
saved only as far as its last checkpoint, and the MCP servers and the engine were killed by the kernel (their
launchers ask for that) instead of being stopped. Ctrl+C in the terminal that started the window raised
KeyboardInterrupt inside whatever Qt callback ran next. From the moment the session's asyncio loop exists, both
signals ask for the orderly quit instead (app/session/quit_order.py); a second one while it runs is ignored, as
the quit is bounded by ``QUIT_CLOSE_WAIT_S``. Before the session opens there is nothing to wind down and the
default handling stays. The loop is woken through its signal wakeup descriptor, so no polling timer is needed.
"""

from __future__ import annotations

import logging
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

QUIT_SIGNALS = (signal.SIGTERM, signal.SIGINT)

log = logging.getLogger(__name__)


def install(loop: asyncio.AbstractEventLoop, quit_requested: Callable[[], None]) -> None:
    """Route ``QUIT_SIGNALS`` to ``quit_requested`` on ``loop`` (where the platform's loop supports it)."""
    for number in QUIT_SIGNALS:
        try:
            loop.add_signal_handler(number, quit_requested)
        except (NotImplementedError, RuntimeError, ValueError) as problem:  # Windows, or not the main thread
            log.info("signal %s keeps its default handling: %s", signal.Signals(number).name, problem)
