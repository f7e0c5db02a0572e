"""The built-in engine's life: started when a run first needs it, shared by the runs after it, stopped after an
idle time or on quit, restarted after a crash.

One ``BuiltinEngine`` per front end (the window, one ``parley chat``). ``ensure(model)`` returns the server's
base URL once the model answers, starting (or restarting with another model) as needed; concurrent callers
share one start. Listeners hear each state change (``EngineStatus``) so the window can show progress while the
model loads; the CLI prints it. A crash is reported on the next ``ensure`` as a clear error and the engine is
started afresh on the one after (or at once by ``restart``).

Settings changed while it runs (``apply_settings``, from Preferences) reach it at once: a new idle stop applies
to the running engine's idle watch, and a change the server only reads when it starts (context size, threads,
GPU layers, the model's file) restarts it with the same model now when no run uses it, or when the last run
using it ends (``pending_restart``), never under an answer. A run holds the engine from its first model call to
its end (``begin_run``/``end_run``), so the calls of one tool loop are served by one engine.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from app.engine import library, memory
from app.engine.run_context import RunContext, TrainedContexts, run_context
from app.engine.settings import START_TIMEOUT_S, EngineSettings

log = logging.getLogger(__name__)

LOG_NAME = "engine.log"
DISCONNECT_GRACE_S = 2.0  # how long a dropped connection waits for the engine's exit status
PORT_RETRIES = 1  # a port taken between choosing it and the server binding it: try once more with a new one

Phase = Literal["stopped", "starting", "ready", "failed"]

if TYPE_CHECKING:
    import asyncio

    # the child process's module (subprocess, signals, temp files: about 1 MB) loads with the engine's first
    # start, not with the window that holds this manager (issue 17's idle memory)
    from app.engine.process import EngineProcess, LaunchSpec


@dataclass(frozen=True)
class EngineStatus:
    phase: Phase
    model: str | None = None
    detail: str = ""  # what to show: "loading smollm2 (3 s)", the error, ...
    elapsed: float = 0.0
    note: str = ""  # starting and ready: why the model runs with less context than the setting (run_context.py)


Listener = Callable[[EngineStatus], None]
Applied = Literal["next_start", "restarting", "after_run", "at_once"]


class BuiltinEngine:
    def __init__(self, settings: EngineSettings, data_dir: Path, *, python: str | None = None) -> None:
        self.settings = settings
        self.log_path = data_dir / LOG_NAME
        self.trained = TrainedContexts(data_dir)
        self.python = python
        self.start_timeout = START_TIMEOUT_S
        self.status = EngineStatus("stopped")
        self._process: EngineProcess | None = None
        self._start_lock: asyncio.Lock | None = None  # made at first use: asyncio loads with the window's loop
        self._listeners: list[Listener] = []
        self._busy = 0
        self._runs = 0
        self.pending_restart = False  # settings changed under a run: restart once it ends
        self._idle_wake: asyncio.Event | None = None  # made by the idle watch, which is the one that waits on it
        self._last_used = time.monotonic()
        self._idle_task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Future[None]] = set()
        atexit.register(self.kill_now)

    # --- listeners ----------------------------------------------------------------------------------
    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _set(self, status: EngineStatus) -> None:
        self.status = status
        for listener in list(self._listeners):
            try:
                listener(status)
            except Exception:
                log.exception("an engine listener failed")

    # --- state ----------------------------------------------------------------------------------------
    @property
    def running_model(self) -> str | None:
        process = self._process
        return process.spec.model_name if process is not None and process.alive() else None

    @property
    def base_url(self) -> str | None:
        process = self._process
        return process.base_url if process is not None and process.alive() else None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def log_tail(self, lines: int = 40) -> str:
        return self._process.log_tail(lines) if self._process is not None else ""

    @property
    def _lock(self) -> asyncio.Lock:
        if self._start_lock is None:
            import asyncio

            self._start_lock = asyncio.Lock()
        return self._start_lock

    # --- use ------------------------------------------------------------------------------------------
    async def ensure(self, model: str | None = None) -> str:
        """The base URL of a server running ``model`` (None: the default), started or restarted as needed.
        Raises EngineStartError, library.UnknownModelError."""
        entry = library.resolve(self.settings, model)
        async with self._lock:
            process = self._process
            if process is not None and not process.alive() and self.status.phase == "ready":
                # it died between runs: say so once, and start afresh below
                log.warning("the built-in engine exited (code %s)", process.exit_code())
            if process is not None and process.alive() and process.spec.model_name == entry.name \
                    and (process.spec == self._spec(entry) or self._in_use()):
                self._last_used = time.monotonic()  # new settings wait for the runs using it to end
                return process.base_url
            if process is not None:
                await process.stop()
                self._process = None
            return await self._start(entry)

    async def _start(self, entry: library.ModelEntry) -> str:
        from app.engine.process import EngineProcess, EngineStartError

        if self.python is None and not library.engine_installed():  # another interpreter is its own business
            message = ("the built-in engine is not installed (llama-cpp-python with its server extra). Run `make "
                       "run` or scripts/bootstrap.sh to build it (a few minutes, once), or use another provider.")
            self._set(EngineStatus("failed", entry.name, message))
            raise EngineStartError(message)
        try:
            library.check_gguf(entry.path)
        except library.ModelFileError as exc:
            self._set(EngineStatus("failed", entry.name, str(exc)))
            raise EngineStartError(str(exc)) from None
        spec = self._spec(entry)
        context = self.run_context(entry)
        if context.note:
            log.warning("built-in engine, %s: %s", entry.name, context.note)
        self.pending_restart = False
        too_big = memory.too_big_warning(entry.path.stat().st_size)
        if too_big:
            log.warning("built-in engine, %s: %s", entry.name, too_big)
        notes = "".join(f"; note: {note}" for note in (context.note, too_big) if note)
        for attempt in range(PORT_RETRIES + 1):
            process = EngineProcess(spec, self.log_path, **({"python": self.python} if self.python else {}))
            self._set(EngineStatus("starting", entry.name, f"starting the built-in engine with {entry.label}"
                                   + notes, note=context.note))
            try:
                process.launch()
                self._process = process
                await process.wait_ready(lambda elapsed: self._set(EngineStatus(
                    "starting", entry.name, f"loading {entry.label} ({elapsed:.0f} s)", elapsed, context.note)),
                    self.start_timeout)
            except EngineStartError as exc:
                if attempt < PORT_RETRIES and process.port_taken():
                    continue
                self._process = None
                self._set(EngineStatus("failed", entry.name, str(exc)))
                raise
            except BaseException:  # cancelled while loading: leave nothing running
                import asyncio

                self._process = None
                await asyncio.shield(process.stop())
                self._set(EngineStatus("stopped"))
                raise
            self._last_used = time.monotonic()
            self._set(EngineStatus("ready", entry.name, f"{entry.label} is loaded ({process.ready_after or 0:.1f} s)"
                                   + (f"; {context.note}" if context.note else ""), process.ready_after or 0.0,
                                   context.note))
            self._watch_idle()
            return process.base_url
        raise AssertionError("unreachable")

    def run_context(self, entry: library.ModelEntry) -> RunContext:
        """The context ``entry`` runs with: the setting, at most the model's trained context (run_context.py)."""
        return run_context(self.settings.context_size, entry.name, self.trained.of(entry.path))

    def _spec(self, entry: library.ModelEntry) -> LaunchSpec:
        from app.engine.process import LaunchSpec

        return LaunchSpec(entry.path, entry.name, self.run_context(entry).tokens, self.settings.effective_threads(),
                          self.settings.gpu_layers)

    def _in_use(self) -> bool:
        return self._busy > 0 or self._runs > 0

    # --- settings changed while running -------------------------------------------------------------
    def apply_settings(self, settings: EngineSettings) -> Applied:
        """Take new settings: ``next_start`` (not running: the next start uses them), ``at_once`` (nothing the
        server reads at start changed; a new idle stop already applies), ``restarting`` (idle: restarting now
        with the same model) or ``after_run`` (a run uses it: restarted when the last such run ends)."""
        idle_changed = settings.idle_stop_minutes != self.settings.idle_stop_minutes
        self.settings = settings
        if idle_changed and self._idle_wake is not None:
            self._idle_wake.set()
            self._watch_idle()
        if not self._stale():
            self.pending_restart = False
            return "at_once" if self.running_model is not None else "next_start"
        if self._in_use():
            self.pending_restart = True
            return "after_run"
        self._restart_soon()
        return "restarting"

    def _stale(self) -> bool:
        """The running server was started with settings or a model file the current settings no longer have."""
        process = self._process
        if process is None or not process.alive():
            return False
        try:
            entry = library.resolve(self.settings, process.spec.model_name)
        except library.UnknownModelError:
            return True  # its model was removed: stopped (restart finds no model and stays stopped)
        return process.spec != self._spec(entry)

    def _restart_soon(self) -> None:
        import asyncio

        self.pending_restart = True
        if any(not t.done() for t in self._tasks):
            return  # one is on its way, and it reads the settings when it runs
        task = asyncio.ensure_future(self._restart_if_stale())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _restart_if_stale(self) -> None:
        """Restart until the engine runs the current settings (they may change again while it loads)."""
        from app.engine.process import EngineStartError

        while True:
            if self._in_use() or not self._stale():
                self.pending_restart = self._in_use() and self._stale()
                return
            model = self.running_model
            await self.stop()
            if model is None:
                return
            try:
                await self.ensure(model)
            except (EngineStartError, library.UnknownModelError) as exc:  # shown by the listeners (status failed)
                log.warning("the built-in engine did not restart with the new settings: %s", exc)
                return

    def begin_run(self) -> None:
        """A run is about to make its first model call: keep this engine (and its settings) until ``end_run``."""
        self._runs += 1

    def end_run(self) -> None:
        self._runs = max(0, self._runs - 1)
        self._last_used = time.monotonic()
        if self.pending_restart and not self._in_use():
            self._restart_soon()

    @contextlib.asynccontextmanager
    async def in_use(self, model: str | None = None) -> AsyncIterator[str]:
        """``async with engine.in_use(model) as base_url``: the engine is not stopped for idleness meanwhile."""
        base_url = await self.ensure(model)
        self._busy += 1
        try:
            yield base_url
        finally:
            self._busy -= 1
            self._last_used = time.monotonic()
            if self.pending_restart and not self._in_use():
                self._restart_soon()

    def crashed(self) -> str | None:
        """A message when the engine died while in use (the caller's request failed because of it)."""
        process = self._process
        if process is None or process.alive() or process.exit_code() is None:
            return None
        return (f"the built-in engine stopped unexpectedly (exit code {process.exit_code()}); it will be started "
                f"again on the next message. Its log ({self.log_path}) ends with:\n{process.log_tail(8)}")

    async def crash_after_disconnect(self, grace_s: float = DISCONNECT_GRACE_S) -> str | None:
        """``crashed()`` after a dropped connection: a dying engine closes its socket a moment before its exit
        status can be read, so wait up to ``grace_s`` for the process to end before saying it did not crash."""
        import asyncio

        deadline = time.monotonic() + grace_s
        # a Popen's exit cannot be awaited without a thread; polling it briefly is enough (as in process.stop)
        while (crash := self.crashed()) is None and self._process is not None and time.monotonic() < deadline:  # noqa: ASYNC110
            await asyncio.sleep(0.05)
        return crash

    def note_crash(self, message: str) -> None:
        self._set(EngineStatus("failed", self.running_model, message))

    # --- stopping -------------------------------------------------------------------------------------
    def _watch_idle(self) -> None:
        if self.settings.idle_stop_minutes <= 0 or self._process is None \
                or (self._idle_task is not None and not self._idle_task.done()):
            return
        import asyncio

        self._idle_task = asyncio.ensure_future(self._idle_loop())

    async def _idle_loop(self) -> None:
        """Stop the engine once it has been unused for the idle stop, read afresh on every wake: a new value
        from ``apply_settings`` wakes the loop at once (0 ends it)."""
        import asyncio

        wake = self._idle_wake = self._idle_wake or asyncio.Event()
        while self._process is not None and self._process.alive():
            idle_s = self.settings.idle_stop_minutes * 60
            if idle_s <= 0:
                return
            remaining = self._last_used + idle_s - time.monotonic()
            if not self._in_use() and remaining <= 0:
                log.info("stopping the built-in engine after %.0f s without a run", idle_s)
                await self.stop()
                return
            wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(wake.wait(), max(remaining, 0.05) if not self._in_use() else 1.0)

    async def stop(self) -> None:
        async with self._lock:
            process, self._process = self._process, None
            if process is not None:
                await process.stop()
            self._set(EngineStatus("stopped"))

    async def restart(self, model: str | None = None) -> str:
        await self.stop()
        return await self.ensure(model)

    async def aclose(self) -> None:
        """Quitting: stop the idle watch and the server."""
        import asyncio

        task = self._idle_task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.stop()
        atexit.unregister(self.kill_now)

    def kill_now(self) -> None:
        if self._process is not None:
            self._process.kill_now()
            self._process = None
