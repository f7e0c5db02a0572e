"""The app side of Preferences > Local models > Engine settings: shows the engine's context size, threads, GPU
layers and idle stop with their limits (app/engine/tuning.py), checks and saves what Apply sends, hands it to
the running engine and says what became of it.

A change the server reads only when it starts restarts an idle engine now (a user who changes the context of a
loaded engine expects the next answer to use it without waiting for a load then, and the tab shows the restart
happening); a run in progress keeps its engine and the restart follows it ("applies after the current
answer"). Kept out of local_models_panel.py, which only creates one and calls ``refresh``.

Whether GPU layers do anything is asked of a child process (app/engine/gpu_check.py), never of llama.cpp in the
window: the GPU note says "checking…" until the answer comes, and the rows work meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from app.engine import gguf_info, library, tuning
from app.engine.gpu_check import GpuCheck
from app.engine.manager import Applied, BuiltinEngine, EngineStatus
from app.engine.settings import MIN_CONTEXT_SIZE, EngineSettings
from widgets.preferences_engine_tuning import EngineTuningBox, TuningShown

MESSAGES: dict[Applied, str] = {
    "next_start": "Saved. The engine is not running: it starts with these settings.",
    "at_once": "Saved and applied.",
    "restarting": "Saved. Restarting the engine with the new settings…",
    "after_run": "Saved. Applies after the current answer: the engine restarts with the new settings then.",
}
GPU_CHECKING = "checking whether this build of llama.cpp can use a GPU…"


class TuningPanel:
    def __init__(self, engine: BuiltinEngine, box: EngineTuningBox, settings: Callable[[], EngineSettings],
                 cache: gguf_info.InfoCache, commit: Callable[[EngineSettings], Applied], gpu: GpuCheck) -> None:
        self.engine, self.box, self.settings, self.cache, self.commit = engine, box, settings, cache, commit
        self.gpu = gpu
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
        answer = self.gpu.answer
        known = answer is not None and answer.error is None
        bounds = tuning.limits(trained, entry.name if entry else "the default model",
                               answer.offload if answer is not None and known else True)
        if answer is None:
            return replace(bounds, gpu_note=GPU_CHECKING)
        if answer.error is not None:
            return replace(bounds, gpu_note=f"could not check whether llama.cpp can use a GPU ({answer.error}); "
                                            "GPU layers are saved and used if the build supports them")
        return bounds

    def refresh(self) -> None:
        self.limits = bounds = self.current_limits()
        values = tuning.Values.of(self.settings())
        self.box.show_values(TuningShown(
            values.context, values.threads, values.gpu_layers, values.idle_stop, MIN_CONTEXT_SIZE,
            bounds.context_max, bounds.context_why, bounds.threads_max, "the logical CPUs of this machine",
            bounds.gpu_layers_max, bounds.gpu_note, bounds.idle_stop_max))

    def gpu_known(self) -> None:
        """The child answered: only the GPU note changes, values being edited stay."""
        self.limits = self.current_limits()
        self.box.show_gpu_note(self.limits.gpu_note)

    def apply(self, context: int, threads: int, gpu_layers: int, idle_stop: int) -> None:
        try:
            engine = tuning.changed(self.settings(), tuning.Values(context, threads, gpu_layers, idle_stop),
                                    self.limits)
        except tuning.TuningError as exc:
            self.box.show_status(f"Not saved: {exc}.")
            return
        applied = self.commit(engine)
        self.box.forget_edits()  # saved: every box shows the saved value again
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
