"""``parley chat``'s engine progress on stderr: the start, the loading at most every 5 s, ready and failures,
each once."""

from __future__ import annotations

import io

from app.engine.manager import EngineStatus
from app.engine.terminal import TerminalProgress


def test_progress_lines_are_few_and_say_what_happens() -> None:
    out = io.StringIO()
    show = TerminalProgress(out)
    show(EngineStatus("starting", "m", "starting the built-in engine with m"))
    for second in (0.25, 1, 2, 4.9, 5.2, 7, 10.4):
        show(EngineStatus("starting", "m", f"loading m ({second:.0f} s)", second))
    show(EngineStatus("ready", "m", "m is loaded (10.5 s)", 10.5))
    show(EngineStatus("ready", "m", "m is loaded (10.5 s)", 10.5))
    show(EngineStatus("stopped"))
    show(EngineStatus("failed", "m", "the engine stopped while loading m"))
    assert out.getvalue().splitlines() == [
        "[built-in engine: starting the built-in engine with m]",
        "[built-in engine: loading m (5 s)]",
        "[built-in engine: loading m (10 s)]",
        "[built-in engine: m is loaded (10.5 s)]",
        "[built-in engine: the engine stopped while loading m]",
    ]
