"""Where the window's start spends its milliseconds and megabytes, module by module (issue 17).

Runs the real ``parley`` window entry point in this process with an import hook that reads the clock and the
resident set (VmRSS, /proc/self/status) around every module's execution, then prints, for the imports made
before the first paint, before "ready" and before ``--idle`` seconds after the start, the modules with the
largest own cost (their import minus the imports they made themselves), and the RSS at each stage.

    PYTHONPATH=. QT_QPA_PLATFORM=offscreen python -m bench.start_profile [--home DIR] [--idle 10] [--top 40]

``--home`` is a ``PARLEY_HOME`` with a history (bench/startup.py's ``fill_history`` makes one); without it a
fresh empty one is used. Numbers are for reading where the cost is, not for quoting as a benchmark: the hook
itself costs a little per import, and RSS grows by pages, so small modules read as 0 or 4 KB.
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any


def rss_kb() -> int:
    with open("/proc/self/status", "rb") as status:  # bytes: decoding could import a codec mid-import
        for line in status:
            if line.startswith(b"VmRSS:"):
                return int(line.split()[1])
    return 0


@dataclass
class Cost:
    name: str
    stage: str
    total_ms: float = 0.0
    total_kb: int = 0
    child_ms: float = 0.0
    child_kb: int = 0
    children: list[str] = field(default_factory=list)

    @property
    def own_ms(self) -> float:
        return self.total_ms - self.child_ms

    @property
    def own_kb(self) -> int:
        return self.total_kb - self.child_kb


class Meter:
    """Wraps every loader's ``exec_module`` so each module's execution is timed and its RSS growth noted."""

    def __init__(self) -> None:
        self.stage = "painted"
        self.costs: list[Cost] = []
        self.stack: list[Cost] = []

    def wrap(self, loader: Any) -> None:
        if getattr(loader, "_parley_metered", False) or not hasattr(loader, "exec_module"):
            return
        original = loader.exec_module
        meter = self

        def exec_module(module: ModuleType) -> None:
            cost = Cost(module.__name__, meter.stage)
            meter.stack.append(cost)
            start, kb = time.perf_counter(), rss_kb()
            try:
                original(module)
            finally:
                cost.total_ms = (time.perf_counter() - start) * 1000
                cost.total_kb = rss_kb() - kb
                meter.stack.pop()
                if meter.stack:
                    meter.stack[-1].child_ms += cost.total_ms
                    meter.stack[-1].child_kb += cost.total_kb
                meter.costs.append(cost)

        try:
            loader.exec_module = exec_module
            loader._parley_metered = True
        except (AttributeError, TypeError):
            pass


class MeteredFinder(importlib.abc.MetaPathFinder):
    def __init__(self, meter: Meter) -> None:
        self.meter = meter

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    self.meter.wrap(spec.loader)
                return spec
        return None


def top_level(name: str) -> str:
    return name.split(".")[0]


def report(meter: Meter, stages: dict[str, int], top: int) -> None:
    print("RSS at each stage (MB):", {k: round(v / 1024, 1) for k, v in stages.items()})
    for stage in ("painted", "ready", "idle"):
        costs = [c for c in meter.costs if c.stage == stage]
        print(f"\n== imports until {stage}: {len(costs)} modules, "
              f"{sum(c.own_ms for c in costs):.0f} ms, {sum(c.own_kb for c in costs) / 1024:.1f} MB")
        groups: dict[str, list[float]] = {}
        for c in costs:
            g = groups.setdefault(top_level(c.name), [0.0, 0.0, 0])
            g[0] += c.own_ms
            g[1] += c.own_kb / 1024
            g[2] += 1
        print(f"{'package':40} {'ms':>7} {'MB':>6} {'modules':>7}")
        for name, (ms, mb, n) in sorted(groups.items(), key=lambda kv: -kv[1][1] - kv[1][0] / 50)[:top]:
            print(f"{name:40} {ms:7.1f} {mb:6.1f} {int(n):7}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", default="")
    parser.add_argument("--idle", type=float, default=10.0)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--modules", action="store_true", help="also list single modules by own MB")
    args = parser.parse_args()
    started = time.monotonic()
    os.environ["PARLEY_HOME"] = args.home or tempfile.mkdtemp(prefix="parley-profile-")
    meter = Meter()
    sys.meta_path.insert(0, MeteredFinder(meter))
    stages: dict[str, int] = {"python": rss_kb()}

    from app.session import startup_trace

    original_mark = startup_trace.mark

    def mark(event: str) -> None:
        original_mark(event)
        stages[event] = rss_kb()
        if event == "painted":
            meter.stage = "ready"
        elif event == "ready":
            meter.stage = "idle"
            from PySide6.QtCore import QCoreApplication, QTimer

            app = QCoreApplication.instance()
            assert app is not None
            QTimer.singleShot(int(max(0.0, started + args.idle - time.monotonic()) * 1000), app.quit)

    startup_trace.mark = mark  # type: ignore[assignment]
    from app.session.gui import main as gui_main

    gui_main()
    stages["idle"] = rss_kb()
    report(meter, stages, args.top)
    if args.modules:
        print("\n== single modules by own MB")
        for c in sorted(meter.costs, key=lambda c: -c.own_kb)[:args.top]:
            print(f"{c.name:60} {c.stage:8} {c.own_ms:7.1f} ms {c.own_kb / 1024:6.1f} MB")
        print("\n== single modules by own ms")
        for c in sorted(meter.costs, key=lambda c: -c.own_ms)[:args.top]:
            print(f"{c.name:60} {c.stage:8} {c.own_ms:7.1f} ms {c.own_kb / 1024:6.1f} MB")


if __name__ == "__main__":
    main()
