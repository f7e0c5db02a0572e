"""The GUI-thread collector: automatic collection off while it runs, cycles collected by its timer's check on the
GUI thread, automatic collection back after stop."""

from __future__ import annotations

import gc
import threading
import weakref

from app.session.gui_thread_gc import GuiThreadCollector


class Node:
    def __init__(self) -> None:
        self.me = self


def test_cycles_are_collected_by_the_gui_thread_check_not_by_a_worker(qapp) -> None:
    was_enabled = gc.isenabled()
    collector = GuiThreadCollector()
    try:
        assert not gc.isenabled()
        node = Node()
        gone = weakref.ref(node)
        del node
        # a worker allocating far past the thresholds triggers no collection while the collector runs
        worker = threading.Thread(target=lambda: [Node() for _ in range(50_000)])
        worker.start()
        worker.join()
        assert gone() is not None
        collector.check()  # what the timer calls on the GUI thread
        collector.check()
        collector.check()
        assert gone() is None
    finally:
        collector.stop()
        assert gc.isenabled()
        if not was_enabled:
            gc.disable()
