"""The window's asyncio event loop (qasync, on Qt's own), started after the window's first frame.

``parley`` runs Qt's event loop from the start and shows its window; asyncio and qasync (about 30 ms of imports:
asyncio brings ssl, sockets, concurrent.futures and logging) are imported only when the session opens, after the
first paint (bench/startup.py). qasync is told that Qt's loop is already running, so the asyncio loop works
inside it from then on. Once Qt's loop has returned (the app quit), ``run_to_end`` runs what is left to finish
(closing the session) on the same loop, closes the async generators left open and closes the loop. qasync sets
no asyncgen hooks, so ``start`` installs Parley's (app/session/asyncgen_hooks.py). The loop is qasync's with its
last event pass fixed (app/session/qasync_loop.py).

The window does not start it with the session either: asyncio with the ssl module it imports, sockets and
qasync hold about 3 MB that an idle window never uses (issue 17, bench/RESULTS.md). ``start_when_needed`` notes
the application, and the loop starts at the first ``ensure_running()``: every place in the window that schedules
a coroutine from a Qt slot calls it first (a run's start in app/session/run_controller.py, MCP servers' start and
reconnects, importing a file, the dialogs whose buttons run checks). Coroutines scheduled from a coroutine run on
the loop already started. The first need pays the loop's start (bench/RESULTS.md has it measured); the window
also starts it at the composer's first keystroke (``start_on_first``), so a first send does not wait for it.
Where nothing was noted (tests, which run their own qasync loop), ``ensure_running`` changes nothing.
A coroutine scheduled from a slot that forgot ``ensure_running`` fails loudly with ``LoopNotStartedError`` rather
than waiting forever on a loop nothing runs (app/session/loop_guard.py).
"""

from __future__ import annotations

import weakref
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio

    from PySide6.QtCore import QCoreApplication, SignalInstance

    from app.session.asyncgen_hooks import AsyncGenHooks


_hooks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, AsyncGenHooks] = weakref.WeakKeyDictionary()
_waiting: list[QCoreApplication] = []  # the application whose loop starts at the first ensure_running()
_started: list[asyncio.AbstractEventLoop] = []  # that loop, once started
_on_start: list[Callable[[asyncio.AbstractEventLoop], None]] = []  # told of the loop when it starts


def start_when_needed(app: QCoreApplication,
                      on_start: Callable[[asyncio.AbstractEventLoop], None] | None = None) -> None:
    """Start ``app``'s asyncio loop at the first ``ensure_running()``, not now; ``on_start`` is called with it then
    (the window routes SIGTERM and Ctrl+C to it: app/session/quit_signals.py)."""
    from app.session import loop_guard

    _waiting[:] = [app]
    _started.clear()
    _on_start[:] = [on_start] if on_start is not None else []
    loop_guard.install(_not_started)  # until then asyncio's implicit loop is refused, naming ensure_running


def _not_started() -> bool:
    return bool(_waiting) and not _started


def ensure_running() -> asyncio.AbstractEventLoop | None:
    """The loop noted by ``start_when_needed``, started now if it has not been; None if none was noted."""
    if _waiting and not _started:
        loop = start(_waiting[0])
        _started.append(loop)
        for started in _on_start:
            started(loop)
    return _started[0] if _started else None


def start_on_first(signal: SignalInstance) -> None:
    """Start the noted loop at ``signal``'s first emission: the window passes the composer's first keystroke, so
    the send that follows finds the loop running and does not pay its start."""
    def first(*_args: object) -> None:
        signal.disconnect(first)
        ensure_running()

    signal.connect(first)


def started_loop() -> asyncio.AbstractEventLoop | None:
    """The loop ``ensure_running`` started, or None: nothing has needed one yet."""
    return _started[0] if _started else None


def forget() -> None:
    """After the loop has been run to its end: the next ``ensure_running`` starts nothing."""
    if _waiting:
        from app.session import loop_guard

        loop_guard.uninstall()
    _waiting.clear()
    _started.clear()
    _on_start.clear()


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
