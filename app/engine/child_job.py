"""One ``app.engine.worker_main`` child run from the window, through QProcess: no thread in the window's
process, and the event loop is never blocked. Each JSON line the child prints is handed to ``on_message``;
``on_end`` gets the last error line (or None) once the child has exited."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable

from PySide6.QtCore import QObject, QProcess

log = logging.getLogger(__name__)

Message = dict[str, object]


class ChildJob(QObject):
    def __init__(self, parent: QObject, args: list[str], on_message: Callable[[Message], None],
                 on_end: Callable[[Message | None], None]) -> None:
        super().__init__(parent)
        self.on_message, self.on_end = on_message, on_end
        self.error: Message | None = None
        self.stopped = False
        self._buffer = b""
        self.process = QProcess(self)
        self.process.setProcessChannelMode(QProcess.ProcessChannelMode.SeparateChannels)
        self.process.readyReadStandardOutput.connect(self._read)
        self.process.finished.connect(self._finished)
        self.process.errorOccurred.connect(self._failed)
        self.process.start(sys.executable, ["-m", "app.engine.worker_main", *args])

    def running(self) -> bool:
        return self.process.state() != QProcess.ProcessState.NotRunning

    def stop(self) -> None:
        """Kill the child (a download keeps its part file for the next attempt)."""
        self.stopped = True
        if self.running():
            self.process.kill()

    def _read(self) -> None:
        self._buffer += bytes(self.process.readAllStandardOutput().data())
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            try:
                message = json.loads(line)
            except ValueError:
                log.warning("model worker printed %r", line[:200])
                continue
            if "error" in message:
                self.error = message
            self.on_message(message)

    def _finished(self, code: int, _status: QProcess.ExitStatus) -> None:
        self._read()
        if self.stopped:
            self.error = None
        if code != 0 and self.error is None and not self.stopped:
            stderr = bytes(self.process.readAllStandardError().data()).decode("utf-8", "replace").strip()
            self.error = {"error": f"the model worker exited with code {code}: {stderr[-300:]}", "kind": "failed"}
        self.on_end(self.error)

    def _failed(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self.error = {"error": f"cannot start {sys.executable}: {self.process.errorString()}", "kind": "failed"}
            self.on_end(self.error)
