"""Quitting the window: the session closed on the running loop within a named bound, then nothing left running.

Every way out of the window (File > Quit, Ctrl+Q, closing the window) closes the session while asyncio still
runs on Qt's loop: the run is stopped and its answer saved, background work cancelled, each MCP server's
session closed and its process stopped, the built-in engine stopped. ``QUIT_CLOSE_WAIT_S`` bounds all of that;
past it the MCP servers' and the engine's processes are killed, so quitting never hangs and leaves no child
behind. A quit that bypasses the window (``app.quit()`` from code) closes the session after Qt's loop has
returned, through the same function (app/session/gui.py, app/session/qt_asyncio.py).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.session.chat_session import ChatSession

log = logging.getLogger(__name__)

QUIT_CLOSE_WAIT_S = 20.0
"""How long closing the session at quit may take (the run's 5 s to save, each MCP server's 6 s stop and 2 s kill
wait, the engine's stop) before the MCP servers and the engine are killed."""


async def close_session(session: ChatSession, seconds: float = QUIT_CLOSE_WAIT_S) -> None:
    """Close ``session`` within ``seconds``; past that, SIGKILL its MCP servers and engine and say so."""
    try:
        async with asyncio.timeout(seconds):
            await session.aclose()
    except TimeoutError:
        log.warning("closing the session took longer than %g s at quit (QUIT_CLOSE_WAIT_S); its MCP servers and "
                    "the built-in engine were killed", seconds)
        session.mcp.kill_now()
        session.engine.kill_now()


async def cancel_leftovers(seconds: float) -> None:
    """Cancel the loop's tasks still pending after the session closed (none is expected: a leftover is logged) and
    wait up to ``seconds`` for them, so none is stepped, or destroyed pending, after the loop stops."""
    current = asyncio.current_task()
    left = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
    if not left:
        return
    log.warning("%d task(s) still running at quit were cancelled: %s", len(left),
                ", ".join(t.get_name() for t in left))
    for task in left:
        task.cancel()
    await asyncio.wait(left, timeout=seconds)
