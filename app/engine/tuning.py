"""The built-in engine's tunable settings (context size, threads, GPU layers, idle stop) as Preferences and
``parley local set`` change them: the named limits each value is checked against, and one place that checks.

settings.json keeps its own wider bounds (app/engine/settings.py), so a file copied from a bigger machine still
loads; these limits are what a user may choose here, on this machine, for the default model:

- context: ``MIN_CONTEXT_SIZE`` (512) up to the default model's trained context when its GGUF metadata says
  (more than a model was trained on only makes it ramble), else ``FALLBACK_MAX_CONTEXT`` (131,072);
- threads: 1 up to this machine's logical CPUs (more only makes llama.cpp's threads wait on each other);
- GPU layers: 0 up to ``MAX_GPU_LAYERS`` (999, more than any model here has, so it means "all"); a build of
  llama.cpp without GPU support (``llama_supports_gpu_offload()``) ignores them, and the note says so (the
  window learns this from a child process, app/engine/gpu_check.py, and says "checking…" until then);
- idle stop: 0 (never) up to ``MAX_IDLE_STOP_MINUTES`` (a day).
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import Literal

from app.engine import gpu_support
from app.engine.settings import MIN_CONTEXT_SIZE, EngineSettings, default_threads

FALLBACK_MAX_CONTEXT = 131_072  # tokens, when the default model's trained context is not known
MAX_GPU_LAYERS = 999  # llama.cpp offloads at most the layers a model has; 999 covers every model here: "all"
MAX_IDLE_STOP_MINUTES = 24 * 60

Knob = Literal["context", "threads", "gpu-layers", "idle-stop"]
KNOBS: tuple[Knob, ...] = ("context", "threads", "gpu-layers", "idle-stop")


class TuningError(ValueError):
    """A value outside its named limit; the message names the setting, the value and the range."""


def cpu_count() -> int:
    return os.cpu_count() or 1


@functools.cache
def gpu_offload() -> bool | None:
    """What this llama.cpp build reports (``llama_supports_gpu_offload``); None when it is not installed.
    Loads llama.cpp into this process: the command line only. The window asks its metadata child instead
    (app/engine/gpu_check.py)."""
    return gpu_support.probe()


@dataclass(frozen=True)
class Limits:
    context_max: int
    context_why: str  # "what smollm2 was trained on" / "no trained context known"
    threads_max: int
    gpu_layers_max: int = MAX_GPU_LAYERS
    idle_stop_max: int = MAX_IDLE_STOP_MINUTES
    gpu_note: str = ""  # "this build of llama.cpp is CPU-only: GPU layers are ignored"


def limits(trained_context: int | None, model: str, gpu: bool | None) -> Limits:
    """The limits for a default model whose GGUF says ``trained_context`` (None: not known yet)."""
    if trained_context is not None and trained_context >= MIN_CONTEXT_SIZE:
        context_max, why = trained_context, f"what {model} was trained on"
    else:
        context_max, why = FALLBACK_MAX_CONTEXT, f"the trained context of {model} is not known"
    note = ("this build of llama.cpp is CPU-only: GPU layers are ignored" if gpu is False
            else "the built-in engine is not installed" if gpu is None else "")
    return Limits(context_max, why, cpu_count(), gpu_note=note)


@dataclass(frozen=True)
class Values:
    """The four values as shown: threads resolved (null: half the CPUs), -1 GPU layers shown as the maximum."""

    context: int
    threads: int
    gpu_layers: int
    idle_stop: int  # minutes

    @classmethod
    def of(cls, engine: EngineSettings) -> Values:
        layers = MAX_GPU_LAYERS if engine.gpu_layers < 0 else min(engine.gpu_layers, MAX_GPU_LAYERS)
        return cls(engine.context_size, engine.effective_threads(), layers, round(engine.idle_stop_minutes))


def check(knob: Knob, value: int, bounds: Limits) -> None:
    """Raise TuningError when ``value`` is outside ``knob``'s limit."""
    low, high, why = {
        "context": (MIN_CONTEXT_SIZE, bounds.context_max, bounds.context_why),
        "threads": (1, bounds.threads_max, "the logical CPUs of this machine"),
        "gpu-layers": (0, bounds.gpu_layers_max, "999 means all layers"),
        "idle-stop": (0, bounds.idle_stop_max, "minutes; 0: never stop"),
    }[knob]
    if not low <= value <= high:
        raise TuningError(f"{knob} must be {low:,} to {high:,} ({why}), not {value:,}")


def changed(engine: EngineSettings, values: Values, bounds: Limits) -> EngineSettings:
    """A copy of ``engine`` with ``values``; only the values that differ from what is shown now are checked and
    stored, so an unchanged value outside today's limits (a file from another machine) stays as it is."""
    now = Values.of(engine)
    update: dict[str, object] = {}
    for knob, old, new, field in (("context", now.context, values.context, "context_size"),
                                  ("threads", now.threads, values.threads, "threads"),
                                  ("gpu-layers", now.gpu_layers, values.gpu_layers, "gpu_layers"),
                                  ("idle-stop", now.idle_stop, values.idle_stop, "idle_stop_minutes")):
        if new != old:
            check(knob, new, bounds)  # type: ignore[arg-type]  # the literal names above are Knobs
            update[field] = float(new) if field == "idle_stop_minutes" else new
    if update.get("threads") == default_threads() and engine.threads is None:
        del update["threads"]
    return engine.model_copy(update=update, deep=True) if update else engine.model_copy(deep=True)
