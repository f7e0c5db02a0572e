"""The window follows settings.json when another process changes it (``parley local set``, ``parley providers
add``, ``parley local add``, ...): the change is applied as if it had been made in Preferences.

A ``QFileSystemWatcher`` watches the file and its folder: every writer replaces the file atomically (a temporary
file renamed over it), which ends a watch on the file itself, so the folder's change is what reliably says the
file was replaced; the file is watched again after each change. Changes are gathered for ``DEBOUNCE_MS`` and the
file is read once (app/settings/shared_file.py): the window's own saves read back as what it knows and change
nothing; another process's change is put onto the window's settings and handed to ``adopt``. A file that cannot
be read or is invalid is reported once (until it changes again) and left in place, and the window keeps its
settings: the user may be in the middle of editing it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer

from app.settings import Settings, SettingsError
from app.settings.shared_file import SettingsFile

log = logging.getLogger(__name__)

DEBOUNCE_MS = 250  # a writer's temporary file, its rename and a second command right after: one read


class SettingsWatch(QObject):
    def __init__(self, parent: QObject, file: SettingsFile, current: Callable[[], Settings],
                 adopt: Callable[[Settings], None], report: Callable[[str], None]) -> None:
        super().__init__(parent)
        self.file, self.current, self.adopt, self.report = file, current, adopt, report
        self._last_problem = ""
        self.stopped = False
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(DEBOUNCE_MS)
        self.timer.timeout.connect(self.check)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._changed)
        self.watcher.directoryChanged.connect(self._changed)
        self._watch()

    def _watch(self) -> None:
        """Watch the folder (created if missing, so a first save by a command is seen) and the file if it is there."""
        folder = self.file.path.parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            log.warning("cannot watch %s for changes: %s", folder, exc)
            return
        if str(folder) not in self.watcher.directories():
            self.watcher.addPath(str(folder))
        if self.file.path.exists() and str(self.file.path) not in self.watcher.files():
            self.watcher.addPath(str(self.file.path))

    def stop(self) -> None:
        """Quitting: stop watching and release the watcher's system handle (inotify's descriptor on Linux) now,
        not when Qt gets round to deleting the session."""
        import shiboken6

        self.stopped = True
        self.timer.stop()
        if shiboken6.isValid(self.watcher):
            shiboken6.delete(self.watcher)

    def _changed(self, _path: str) -> None:
        self.timer.start()  # restarted by every change until they stop for DEBOUNCE_MS

    def check(self) -> None:
        """Read the file now; adopt another process's change, report a file that cannot be used."""
        if self.stopped:
            return
        self._watch()
        try:
            merged = self.file.reload(self.current())
        except SettingsError as problem:
            text = (f"{problem}. The window keeps its current settings until the file is fixed; a setting changed "
                    f"in the window before then moves the file aside (to {self.file.path.name}.bad-…) and saves "
                    "the window's settings.")
            if text != self._last_problem:
                self._last_problem = text
                self.report(text)
            return
        self._last_problem = ""
        if merged is not None:
            self.adopt(merged)
