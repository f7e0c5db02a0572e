"""The window's asyncio event loop (qasync, on Qt's own), started after the window's first frame.

``parley`` runs Qt's event loop from the start and shows its window; asyncio and qasync (about 30 ms of imports:
asyncio brings ssl, sockets, concurrent.futures and logging) are imported only when the session opens, after the
first paint (bench/startup.py). qasync is told that Qt's loop is already running, so the asyncio loop works
inside it from then on. Once Qt's loop has returned (the app quit), ``run_to_end`` runs what is left to finish
(closing the session) on the same loop, closes the async generators left open and closes the loop. qasync sets
no asyncgen hooks, so ``start`` installs Parley's (app/session/asyncgen_hooks.py). The loop is qasync's with its
last event pass fixed (app/session/qasync_loop.py).
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

    from PySide6.QtCore import QCoreApplication

    from app.session.asyncgen_hooks import AsyncGenHooks


_hooks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncGenHooks] = weakref.WeakKeyDictionary()


def start(app: QCoreApplication) -> asyncio.AbstractEventLoop:
    """An asyncio loop on ``app``'s running Qt event loop, set as this thread's loop."""
    import asyncio

    from app.session.asyncgen_hooks import AsyncGenHooks
    from app.session.qasync_loop import QuitSafeEventLoop

    loop: asyncio.AbstractEventLoop = QuitSafeEventLoop(app, already_running=True)  # qasync_loop.py: why
    asyncio.set_event_loop(loop)
    hooks = AsyncGenHooks(loop)
    hooks.install()
    _hooks[loop] = hooks
    return loop


def run_to_end(loop: asyncio.AbstractEventLoop, work: Awaitable[None]) -> None:
    """After Qt's loop has returned: run ``work`` on ``loop`` (Qt's loop runs again meanwhile), then close it."""
    loop.stop()  # started as already running: it counts as running until told it has stopped
    hooks = _hooks.pop(loop, None)
    try:
        loop.run_until_complete(work)
        if hooks is not None:
            loop.run_until_complete(hooks.shutdown())
    finally:
        if hooks is not None:
            hooks.uninstall()
        loop.close()
