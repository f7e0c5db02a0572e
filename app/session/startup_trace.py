"""Start-up timestamps for measuring ``parley`` from outside (bench/startup.py).

With ``PARLEY_STARTUP_TRACE=FILE`` set, the window appends one line ``EVENT MONOTONIC_SECONDS`` to FILE when its
first frame has been painted (``painted``) and when it is ready (``ready``: the conversation list filled and the
composer accepting typing). ``time.monotonic`` is the system-wide CLOCK_MONOTONIC on Linux, so the benchmark
compares these stamps with its own clock read just before it started the process. With
``PARLEY_STARTUP_QUIT_AFTER=SECONDS`` as well, the window quits that many seconds after it is ready (0: at once),
so a whole-process timer can time a start. Without the variables nothing is written and nothing changes.

This module is imported on the start path, so it imports nothing but the standard library's basics.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # Qt is not imported for the trace itself
    from PySide6.QtCore import QObject

TRACE_ENV = "PARLEY_STARTUP_TRACE"
QUIT_ENV = "PARLEY_STARTUP_QUIT_AFTER"
DRIVE_ENV = "PARLEY_STARTUP_DRIVE"


def enabled() -> bool:
    return bool(os.environ.get(TRACE_ENV))


def mark(event: str) -> None:
    """Append ``event`` and the monotonic clock to the trace file, when tracing is on."""
    path = os.environ.get(TRACE_ENV)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as trace:
        trace.write(f"{event} {time.monotonic():.6f}\n")


def quit_after() -> float | None:
    """Seconds after "ready" at which the window should quit, or None to keep running as usual."""
    text = os.environ.get(QUIT_ENV)
    if not text:
        return None
    try:
        return max(0.0, float(text))
    except ValueError:
        return None


def drive_text() -> str | None:
    """With ``PARLEY_STARTUP_DRIVE=TEXT`` (and tracing on), the message app/session/startup_drive.py sends once the
    window is ready, after opening the top conversation; the quit then comes that long after the answer."""
    text = os.environ.get(DRIVE_ENV)
    return text if text and enabled() else None


def read_marks(path: str) -> dict[str, float]:
    """The first stamp of each event in a trace file (for the benchmark)."""
    marks: dict[str, float] = {}
    try:
        with open(path, encoding="utf-8") as trace:
            for line in trace:
                event, _, stamp = line.strip().partition(" ")
                if event and stamp:
                    marks.setdefault(event, float(stamp))
    except FileNotFoundError:
        pass
    return marks


def on_first_paint(widget: QObject, callback: Callable[[], None]) -> object:
    """Call ``callback`` once, just after ``widget``'s first paint has been handed to the window system."""
    from widgets.first_paint import after_first_paint

    return after_first_paint(widget, callback)
