"""The built-in engine's progress in a terminal: one line on stderr when it starts, while the model loads (at
most every ``PROGRESS_EVERY_S``), when it is ready and when it fails. Standard output stays the answer alone."""

from __future__ import annotations

import sys
from typing import TextIO

from app.engine.manager import EngineStatus

PROGRESS_EVERY_S = 5.0


class TerminalProgress:
    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream
        self._last_phase = ""
        self._last_shown = 0.0

    def __call__(self, status: EngineStatus) -> None:
        stream = self.stream or sys.stderr
        if status.phase == "starting":
            first = self._last_phase != "starting"
            if not first and status.elapsed - self._last_shown < PROGRESS_EVERY_S:
                return
            self._last_shown = status.elapsed
        elif status.phase == "stopped" or status.phase == self._last_phase:
            self._last_phase = status.phase
            return
        self._last_phase = status.phase
        print(f"[built-in engine: {status.detail}]", file=stream, flush=True)
