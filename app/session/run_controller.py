"""Runs the run service (app/runs/run_service.py) as an asyncio task on the Qt event loop (qasync) and hands its
events to widgets.

Widgets never call the network or the database: they receive every run event through ``event_emitted`` (in
order, on the GUI thread, synchronously as the loop makes them) and ask for a stop with ``stop()``, which
cancels the task; the loop then closes the HTTP stream and running tools and still ends with ``done``.
The recorder and other sinks get each event before the widgets do. A bug inside the loop is not swallowed:
it is reported through ``crashed`` with its traceback and logged.
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.runs.run_service import PreparedRun, run, run_loop
from app.session import qt_asyncio
from orchestration.engine import ChatAdapter
from orchestration.events import RunEvent
from orchestration.limits import LoopLimits
from orchestration.loop import RunRequest, RunResult
from orchestration.tool_api import ToolSet
from orchestration.tool_turn import Approver
from widgets.typed_signal import TypedSignal

log = logging.getLogger(__name__)

EventSink = Callable[[RunEvent], None]


class RunController(QObject):
    _events = Signal(object)  # Qt's side of ``event_emitted``: emit and connect through that, typed
    _results = Signal(object)  # Qt's side of ``run_finished``
    running_changed = Signal(bool)
    crashed = Signal(str)  # traceback text of a bug in the run

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.event_emitted: TypedSignal[RunEvent] = TypedSignal(self._events)
        self.run_finished: TypedSignal[RunResult] = TypedSignal(self._results)
        self._task: asyncio.Task[RunResult] | None = None
        self._sinks: list[EventSink] = []

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self, adapter: ChatAdapter, tools: ToolSet, request: RunRequest, *, limits: LoopLimits | None = None,
              approver: Approver | None = None, sinks: list[EventSink] | None = None) -> asyncio.Task[RunResult]:
        """Start a run of ``request`` on the running event loop; one run at a time."""
        self._check_idle()
        self._sinks = list(sinks or [])
        return self._launch(run_loop(adapter, tools, request, self._emit, limits=limits, approver=approver))

    def start_prepared(self, prepared: PreparedRun, approver: Approver | None = None) -> asyncio.Task[RunResult]:
        """Start a run the service prepared (its user message recorded); one run at a time."""
        self._check_idle()
        self._sinks = []
        return self._launch(run(prepared, self._emit, approver))

    def _check_idle(self) -> None:
        if self.running:
            raise RuntimeError("a run is already active; stop it first")

    def _launch(self, work: Coroutine[Any, Any, RunResult]) -> asyncio.Task[RunResult]:
        qt_asyncio.ensure_running()  # the window's loop starts with its first run (app/session/qt_asyncio.py)
        self._task = asyncio.ensure_future(self._run(work))
        self._task.add_done_callback(lambda _task: work.close())  # a run stopped before it began never starts
        self.running_changed.emit(True)
        return self._task

    def stop(self) -> None:
        if self.running and self._task is not None:
            self._task.cancel()

    async def wait(self) -> RunResult | None:
        if self._task is None:
            return None
        try:
            return await asyncio.shield(self._task)
        except Exception:
            return None

    def _emit(self, event: RunEvent) -> None:
        for sink in self._sinks:
            sink(event)
        self.event_emitted.emit(event)

    async def _run(self, work: Coroutine[Any, Any, RunResult]) -> RunResult:
        try:
            result = await work
        except Exception:
            text = traceback.format_exc()
            log.error("run crashed:\n%s", text)
            self.crashed.emit(text)
            raise
        finally:
            self.running_changed.emit(False)
        self.run_finished.emit(result)
        return result
