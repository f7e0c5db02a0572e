"""The app side of Preferences > Local models > Engine settings: shows the engine's context size, threads, GPU
layers and idle stop with their limits (app/engine/tuning.py), checks and saves what Apply sends, hands it to
the running engine and says what became of it.

A change the server reads only when it starts restarts an idle engine now (a user who changes the context of a
loaded engine expects the next answer to use it without waiting for a load then, and the tab shows the restart
happening); a run in progress keeps its engine and the restart follows it ("applies after the current
answer"). Kept out of local_models_panel.py, which only creates one and calls ``refresh``.
"""

from __future__ import annotations

from collections.abc import Callable

from app.engine import gguf_info, library, tuning
from app.engine.manager import Applied, BuiltinEngine, EngineStatus
from app.engine.settings import MIN_CONTEXT_SIZE, EngineSettings
from widgets.preferences_engine_tuning import EngineTuningBox, TuningShown

MESSAGES: dict[Applied, str] = {
    "next_start": "Saved. The engine is not running: it starts with these settings.",
    "at_once": "Saved and applied.",
    "restarting": "Saved. Restarting the engine with the new settings…",
    "after_run": "Saved. Applies after the current answer: the engine restarts with the new settings then.",
}


class TuningPanel:
    def __init__(self, engine: BuiltinEngine, box: EngineTuningBox, settings: Callable[[], EngineSettings],
                 cache: gguf_info.InfoCache, commit: Callable[[EngineSettings], Applied]) -> None:
        self.engine, self.box, self.settings, self.cache, self.commit = engine, box, settings, cache, commit
        self.limits = tuning.limits(None, library.DEMO_MODEL, None)
        self.waiting_restart = False
        box.apply_requested.connect(self.apply)
        engine.add_listener(self._engine_changed)

    def close(self) -> None:
        self.engine.remove_listener(self._engine_changed)

    def current_limits(self) -> tuning.Limits:
        """The limits for the default model, its trained context read from the metadata cache when known."""
        engine = self.settings()
        trained = None
        try:
            entry = library.resolve(engine, None)
            info = self.cache.cached(entry.path)
            trained = info.context_length if info is not None else None
        except library.UnknownModelError:
            entry = None
        return tuning.limits(trained, entry.name if entry else "the default model", tuning.gpu_offload())

    def refresh(self) -> None:
        self.limits = bounds = self.current_limits()
        values = tuning.Values.of(self.settings())
        self.box.show_values(TuningShown(
            values.context, values.threads, values.gpu_layers, values.idle_stop, MIN_CONTEXT_SIZE,
            bounds.context_max, bounds.context_why, bounds.threads_max, "the logical CPUs of this machine",
            bounds.gpu_layers_max, bounds.gpu_note, bounds.idle_stop_max))

    def apply(self, context: int, threads: int, gpu_layers: int, idle_stop: int) -> None:
        try:
            engine = tuning.changed(self.settings(), tuning.Values(context, threads, gpu_layers, idle_stop),
                                    self.limits)
        except tuning.TuningError as exc:
            self.box.show_status(f"Not saved: {exc}.")
            return
        applied = self.commit(engine)
        self.waiting_restart = applied in ("restarting", "after_run")
        self.box.show_status(MESSAGES[applied])
        self.refresh()

    def _engine_changed(self, status: EngineStatus) -> None:
        if self.waiting_restart and status.phase == "ready" and not self.engine.pending_restart:
            self.waiting_restart = False
            self.box.show_status(f"Applied: the engine runs {status.model} with the new settings.")
        elif self.waiting_restart and status.phase == "failed":
            self.waiting_restart = False
            self.box.show_status("Saved, but the engine did not start with the new settings: see its state "
                                 "below.")
