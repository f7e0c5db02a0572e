"""The window's runs that are going: at most one per conversation, any number of conversations at once.

Each run gets its own ``RunController`` (one asyncio task on the Qt loop) and its own approver. Events, ends and
crashes of every run come out of one place tagged with their conversation, so the window can fold each event
into its conversation's state and show it only when that conversation is on screen. ``running`` is true while
any run goes; ``stop()`` stops them all (quitting), ``stop_conversation`` one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from widgets.typed_signal import TypedSignal

if TYPE_CHECKING:  # the run service and the chat loop load with the first run, not with the window (issue 17)
    from app.runs.run_service import PreparedRun
    from app.session.run_controller import RunController
    from app.storage.run_recorder import RunRecorder
    from orchestration.events import RunEvent
    from orchestration.loop import RunResult
    from orchestration.tool_turn import Approver


@dataclass
class LiveRun:
    """One run that is going and what the window needs when it ends."""

    conversation_id: int | None
    controller: RunController
    recorder: RunRecorder | None
    text: str  # the question, given back to the composer when nothing could be sent
    approver: Any = None
    result: RunResult | None = field(default=None)


class LiveRuns(QObject):
    _events = Signal(object)  # Qt's side of ``event_emitted``
    _conversation_events = Signal(object, object)  # Qt's side of ``conversation_event``
    _results = Signal(object)  # Qt's side of ``run_finished``
    _ends = Signal(object, object)  # Qt's side of ``run_ended``
    _crashes = Signal(object, str)  # Qt's side of ``crashed``

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.event_emitted: TypedSignal[RunEvent] = TypedSignal(self._events)  # a run event of any run
        self.conversation_event: TypedSignal[LiveRun, RunEvent] = TypedSignal(self._conversation_events)
        self.run_finished: TypedSignal[RunResult] = TypedSignal(self._results)  # the result of any run
        self.run_ended: TypedSignal[LiveRun, RunResult] = TypedSignal(self._ends)  # the run and its result
        self.crashed: TypedSignal[LiveRun, str] = TypedSignal(self._crashes)  # the run, a bug's traceback text
        self._runs: dict[int | None, LiveRun] = {}

    @property
    def running(self) -> bool:
        return any(run.controller.running for run in self._runs.values())

    def is_running(self, conversation_id: int | None) -> bool:
        run = self._runs.get(conversation_id)
        return run is not None and run.controller.running

    def get(self, conversation_id: int | None) -> LiveRun | None:
        return self._runs.get(conversation_id)

    def start(self, prepared: PreparedRun, text: str, approver: Approver | None = None) -> LiveRun:
        """Start a prepared run of conversation ``prepared.conversation_id``; one run per conversation."""
        key = prepared.conversation_id
        if self.is_running(key):
            raise RuntimeError(f"conversation {key} already has a run; stop it first")
        from app.session.run_controller import RunController

        controller = RunController(self)
        live = LiveRun(key, controller, prepared.recorder, text, approver)
        self._runs[key] = live
        controller.event_emitted.connect(lambda event: self._event(live, event))
        controller.run_finished.connect(lambda result: self._finished(live, result))
        controller.crashed.connect(lambda trace: self._crashed(live, trace))
        controller.start_prepared(prepared, approver)
        return live

    def stop(self) -> None:
        """Stop every run (quitting)."""
        for run in list(self._runs.values()):
            run.controller.stop()

    def stop_conversation(self, conversation_id: int | None) -> None:
        run = self._runs.get(conversation_id)
        if run is not None:
            run.controller.stop()

    async def wait(self) -> None:
        """Wait for every run to end (each saves its partial answer when stopped)."""
        import asyncio  # with the window's loop, started by the first run (app/session/qt_asyncio.py)

        await asyncio.gather(*(run.controller.wait() for run in list(self._runs.values())))

    def _event(self, live: LiveRun, event: RunEvent) -> None:
        self.conversation_event.emit(live, event)
        self.event_emitted.emit(event)

    def _finished(self, live: LiveRun, result: RunResult) -> None:
        live.result = result
        self._forget(live)
        self.run_ended.emit(live, result)
        self.run_finished.emit(result)

    def _crashed(self, live: LiveRun, trace: str) -> None:
        self._forget(live)
        self.crashed.emit(live, trace)

    def _forget(self, live: LiveRun) -> None:
        if self._runs.get(live.conversation_id) is live:
            del self._runs[live.conversation_id]
        closing = getattr(live.approver, "close", None)
        if closing is not None:
            closing()
