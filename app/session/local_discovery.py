"""The window's search for local model servers, on a plain thread rather than the asyncio loop.

A window with no provider looks for Ollama, LM Studio, llama.cpp and vLLM on loopback as it starts, so the
welcome can offer them. The probes are blocking sockets, all at once, for at most half a second
(orchestration/providers/discovery.py): doing it on the asyncio loop would start the loop, and import asyncio with
the ssl module, at every such start, about 9 MB an idle window otherwise never needs (issue 17). The result comes
back to the GUI thread as a queued Qt signal; a search still running when a new one is asked for is not doubled.
The thread starts on the event loop's next turn, as the asyncio task did, so it does not compete with the rest
of the session's opening for the interpreter before the window is ready.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal, Slot

log = logging.getLogger(__name__)

ServerRow = tuple[str, str, str]  # title, preset, base URL: what the welcome lists


class LocalDiscovery(QObject):
    _found = Signal(list)

    def __init__(self, on_found: Callable[[list[ServerRow]], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.on_found = on_found
        self._thread: threading.Thread | None = None
        self._pending = False  # asked for, starting on the next turn
        self._found.connect(self._deliver)  # this object lives on the GUI thread: queued from the search's thread

    def running(self) -> bool:
        return self._pending or (self._thread is not None and self._thread.is_alive())

    def start(self) -> None:
        if self.running():
            return
        self._pending = True
        QTimer.singleShot(0, self, self._begin)

    def _begin(self) -> None:
        self._pending = False
        self._thread = threading.Thread(target=self._search, name="local-server discovery", daemon=True)
        self._thread.start()

    def _search(self) -> None:
        rows: list[ServerRow] = []
        try:
            from orchestration.providers.discovery import find_local_servers

            rows = [(s.title, s.preset, s.base_url) for s in find_local_servers()]
        except Exception:
            log.exception("local server discovery failed")
        with contextlib.suppress(RuntimeError):  # the window closed meanwhile: nobody to tell
            self._found.emit(rows)

    @Slot(list)
    def _deliver(self, rows: list[ServerRow]) -> None:
        self.on_found(rows)
