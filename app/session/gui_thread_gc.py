"""Cyclic garbage collection only on the GUI thread.

Python's cycle collector runs on whichever thread happens to allocate when a threshold is crossed. In Parley that
can be a worker (``asyncio.to_thread`` file and search work, a loopback server in the tests) while a cycle holds a
Qt object (a widget and a closure connected to its signal): Qt then destroys that object, and its timers, off the
GUI thread, and the process crashes later inside the event loop. So automatic collection is switched off and a
GUI-thread timer collects instead, a generation at a time, as the thresholds would have.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

CHECK_INTERVAL_MS = 500  # how often the GUI thread looks at the allocation counts


class GuiThreadCollector(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.setInterval(CHECK_INTERVAL_MS)
        self._timer.timeout.connect(self.check)
        self._timer.start()

    def check(self) -> None:
        counts = gc.get_count()
        for generation in (2, 1, 0):
            if counts[generation] > self._thresholds[generation]:
                gc.collect(generation)
                return

    def stop(self) -> None:
        """Back to automatic collection (at quit, once no Qt object is left to protect)."""
        self._timer.stop()
        gc.enable()
