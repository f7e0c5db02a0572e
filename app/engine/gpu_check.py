"""The window's question "does this llama.cpp build use GPU layers?", answered by the metadata child.

Preferences > Local models shows "checking…" next to GPU layers until the child (``worker_main gpu``, through
app/engine/child_job.py) answers; the rows stay usable meanwhile. An answer is kept for the rest of the session
(per build key, in this module) and across sessions (app/engine/gpu_support.py), so the child runs once per
llama.cpp build. A child that fails gives a note saying so; it is not kept, so the next opening asks again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject

from app.engine import gpu_support
from app.engine.child_job import ChildJob, Message


@dataclass(frozen=True)
class GpuAnswer:
    offload: bool | None  # None: llama.cpp is not installed (or does not load)
    error: str | None = None  # the check itself failed


_SESSION: dict[str, bool | None] = {}  # build key -> answer, for this process


class GpuCheck:
    def __init__(self, parent: QObject, data_dir: Path) -> None:
        self.parent, self.data_dir = parent, data_dir
        self.answer: GpuAnswer | None = None  # None: still checking
        self.job: ChildJob | None = None
        self._stopped = False

    def start(self, on_answer: Callable[[], None]) -> None:
        """Answer now from a cache, else start the child and call ``on_answer`` when it has answered."""
        key = gpu_support.build_key()
        if key is None:
            self.answer = GpuAnswer(None)
            return
        if key in _SESSION:
            self.answer = GpuAnswer(_SESSION[key])
            return
        stored = gpu_support.read_cached(self.data_dir, key)
        if stored is not None:
            _SESSION[key] = stored
            self.answer = GpuAnswer(stored)
            return
        said: list[Message] = []

        def ended(error: Message | None) -> None:
            self.job = None
            if self._stopped:
                return  # the dialog closed first: nothing to show, nothing learnt
            offload = said[-1].get("gpu") if said else "missing"
            if error is not None:
                self.answer = GpuAnswer(None, str(error.get("error")))
            elif offload is None or isinstance(offload, bool):
                _SESSION[key] = offload
                if offload is not None:
                    gpu_support.remember(self.data_dir, key, offload)
                self.answer = GpuAnswer(offload)
            else:
                self.answer = GpuAnswer(None, f"the model worker answered {said[-1] if said else 'nothing'}")
            on_answer()

        self.job = ChildJob(self.parent, ["gpu"], lambda line: said.append(line) if "gpu" in line else None,
                            ended)

    def stop(self) -> None:
        self._stopped = True
        if self.job is not None and self.job.running():
            self.job.stop()
            self.job.process.waitForFinished(3000)
        self.job = None


def forget_session_answers() -> None:
    """Tests: ask again as a new session would."""
    _SESSION.clear()
