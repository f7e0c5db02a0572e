"""The qasync event loop Parley runs asyncio on: still the thread's running loop in qasync's last event pass.

qasync's ``run_until_complete`` stops Qt's loop once the awaited future is done, clears asyncio's running loop,
and then lets Qt process its pending events once more. A task step queued in the same turn as that stop (an MCP
server's heartbeat waking its connection's task, a child process's exit callback) runs in that last pass, where
``asyncio.timeout``, ``asyncio.sleep`` and anyio raise ``RuntimeError: no running event loop``. An MCP connection
died of it and was logged at shutdown: "MCP server 'time' ended with RuntimeError('no running event loop')"
(``make screenshots``, which drives its window with ``run_until_complete`` between pictures). ``parley`` meets
the same pass once, when it closes its session after Qt's loop has returned (app/session/qt_asyncio.py).

``QuitSafeEventLoop`` stays the thread's running loop through that pass and clears it afterwards, as qasync
does. The window, the screenshot scripts and the tests' ``qasync_loop`` fixture all use it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import qasync


class QuitSafeEventLoop(qasync.QEventLoop):  # type: ignore[misc]  # qasync ships no types
    """A ``qasync.QEventLoop`` whose tasks have their loop in ``run_until_complete``'s last event pass."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._until_complete = False
        super().__init__(*args, **kwargs)

    def run_forever(self) -> Any:
        try:
            return super().run_forever()
        finally:
            if self._until_complete:  # qasync's run_until_complete processes events once more after this returns
                asyncio._set_running_loop(self)

    def run_until_complete(self, future: Any) -> Any:
        if self.is_running():
            return super().run_until_complete(future)  # qasync refuses: the loop is already running
        self._until_complete = True
        try:
            return super().run_until_complete(future)
        finally:
            self._until_complete = False
            asyncio._set_running_loop(None)  # as qasync leaves it: the loop is not running any more
