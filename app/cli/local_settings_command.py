"""``parley local settings`` and ``parley local set KNOB VALUE``: the built-in engine's context size, threads,
GPU layers and idle stop, checked against the same named limits as Preferences (app/engine/tuning.py).

The settings file is what changes (merged with what other writers saved meanwhile, app/settings/shared_file.py);
a window already running follows it (app/session/settings_watch.py) and applies it to its engine as its
Preferences would, and the next ``parley chat`` starts its engine with the new values.
"""

from __future__ import annotations

import argparse
import sys

from app.cli.cli_common import EXIT_OK, UsageError
from app.cli.cli_context import paths_from_args, save_settings_from_args, settings_from_args
from app.engine import gguf_info, library, tuning
from app.engine.settings import MIN_CONTEXT_SIZE, EngineSettings

UNITS = {"context": "tokens", "threads": "", "gpu-layers": "", "idle-stop": "minutes"}


def add_arguments(settings: argparse.ArgumentParser, set_: argparse.ArgumentParser) -> None:
    del settings  # `local settings` takes no arguments of its own
    set_.add_argument("knob", metavar="SETTING", choices=tuning.KNOBS,
                      help="context (tokens), threads, gpu-layers or idle-stop (minutes, 0: never)")
    set_.add_argument("value", metavar="VALUE", help="a whole number; for threads also `auto` (half the CPUs)")


def _limits(args: argparse.Namespace, engine: EngineSettings) -> tuning.Limits:
    trained, name = None, "the default model"
    try:
        entry = library.resolve(engine, None)
        name = entry.name
        trained = gguf_info.InfoCache(paths_from_args(args).data_dir).read(entry.path).context_length
    except (library.UnknownModelError, gguf_info.DamagedModelError, OSError):
        pass  # not known: the fallback limit applies, and the message says why
    return tuning.limits(trained, name, tuning.gpu_offload())


def run_settings(args: argparse.Namespace) -> int:
    engine = settings_from_args(args).engine
    bounds = _limits(args, engine)
    values = tuning.Values.of(engine)
    rows = (("context", f"{values.context:,} tokens",
             f"{MIN_CONTEXT_SIZE:,} to {bounds.context_max:,}: {bounds.context_why}"),
            ("threads", f"{values.threads}" + (" (auto)" if engine.threads is None else ""),
             f"1 to {bounds.threads_max}: the logical CPUs of this machine; auto: half of them"),
            ("gpu-layers", f"{values.gpu_layers}", f"0 to {bounds.gpu_layers_max} ({bounds.gpu_layers_max}: all)"
             + (f"; {bounds.gpu_note}" if bounds.gpu_note else "")),
            ("idle-stop", f"{values.idle_stop} minutes" if values.idle_stop else "never",
             f"0 to {bounds.idle_stop_max:,} minutes; 0: never"))
    for knob, value, limit in rows:
        print(f"{knob}\t{value}\t{limit}")
    return EXIT_OK


def run_set(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    engine = settings.engine
    knob: tuning.Knob = args.knob
    if knob == "threads" and args.value == "auto":
        settings.engine = engine.model_copy(update={"threads": None})
        save_settings_from_args(args, settings)
        print(f"threads: auto ({engine.model_copy(update={'threads': None}).effective_threads()} on this "
              "machine); the engine uses it when it next starts (an open window applies it now)", file=sys.stderr)
        return EXIT_OK
    try:
        value = int(args.value.replace(",", "").replace("_", ""))
    except ValueError:
        raise UsageError(f"{knob} takes a whole number, not {args.value!r}") from None
    bounds = _limits(args, engine)
    try:
        tuning.check(knob, value, bounds)
    except tuning.TuningError as exc:
        raise UsageError(str(exc)) from None
    field = {"context": "context_size", "threads": "threads", "gpu-layers": "gpu_layers",
             "idle-stop": "idle_stop_minutes"}[knob]
    settings.engine = engine.model_copy(update={field: float(value) if knob == "idle-stop" else value})
    save_settings_from_args(args, settings)
    note = f" (note: {bounds.gpu_note})" if knob == "gpu-layers" and bounds.gpu_note else ""
    print(f"{knob}: {value:,}{' ' + UNITS[knob] if UNITS[knob] else ''}; the engine uses it when it next starts "
          f"(an open window applies it now){note}", file=sys.stderr)
    return EXIT_OK
