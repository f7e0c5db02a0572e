"""The settings file as one of several writers sees it: the window and any number of ``parley`` commands read
and write the same settings.json.

``SettingsFile`` remembers what this process last read from or wrote to the file (``known``). Saving takes an
exclusive lock beside the file (``settings.json.lock``, fcntl; on a system without it, none), reads what the
file holds now, puts this writer's changes since ``known`` onto it (app/settings/merge.py) and writes that
atomically, so a change another process saved meanwhile is kept, not overwritten by an old copy. ``reload``
reads the file after another process changed it and returns the settings to adopt: the file's changes put onto
this process's settings (the file wins where both changed a value), or None when the file holds what this
process already knows (its own save, seen by a file watcher).

Limits: the lock is waited for at most ``LOCK_WAIT_S``; a writer that does not use it (an editor) can still
race with a save, and a settings file that is invalid when a save reads it is moved aside (as at start) and
this writer's settings are written.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Iterator
from pathlib import Path

from app.errors import describe_os_error
from app.settings.merge import merge_settings
from app.settings.model import Settings
from app.settings.store import (
    InvalidSettingsText,
    SettingsError,
    load_settings,
    parse_settings,
    read_limited,
    save_settings,
)

log = logging.getLogger(__name__)

LOCK_WAIT_S = 2.0  # another writer holds the lock for a read and a write: milliseconds; past this, give up
LOCK_POLL_S = 0.01


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the exclusive lock on ``path``'s lock file; raises SettingsError after ``LOCK_WAIT_S``."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock (module docstring)
        yield
        return
    lock_path = path.with_name(path.name + ".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise SettingsError(f"could not open the settings lock {lock_path} ({describe_os_error(exc)}); "
                            "the settings file is unchanged") from exc
    try:
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise SettingsError(f"another Parley process has been writing the settings file {path} for "
                                        f"more than {LOCK_WAIT_S:g} s (its lock {lock_path} is held); the file "
                                        "is unchanged") from None
                time.sleep(LOCK_POLL_S)
        yield
    finally:
        os.close(handle)  # closing releases the lock


class SettingsFile:
    def __init__(self, path: Path, known: Settings) -> None:
        self.path = Path(path)
        self.known = known.model_copy(deep=True)

    def save(self, settings: Settings) -> Settings:
        """Write ``settings``' changes since ``known`` onto the file's current settings; returns what was written
        (the caller's settings plus what other writers saved meanwhile). Raises SettingsError."""
        with locked(self.path):
            loaded = load_settings(self.path)
            if loaded.problem is not None:
                log.warning("%s", loaded.problem)
                current = self.known  # nothing valid to merge onto: the invalid file was moved aside
            else:
                current = loaded.settings
            merged = merge_settings(self.known, settings, current)
            save_settings(merged, self.path)
        self.known = merged.model_copy(deep=True)
        return merged

    def reload(self, mine: Settings) -> Settings | None:
        """After another process changed the file: ``mine`` with the file's changes since ``known`` (they win a
        conflict), or None when the file holds what this process knows. Raises SettingsError for a file that
        cannot be read or is invalid (it is left in place: the user may be editing it)."""
        current = read_settings(self.path)
        if current == self.known:
            return None
        merged = merge_settings(self.known, current, mine)
        self.known = current.model_copy(deep=True)
        return merged


def read_settings(path: Path) -> Settings:
    """The file's settings (defaults when it does not exist), moving nothing aside; raises SettingsError."""
    try:
        return parse_settings(read_limited(path))
    except FileNotFoundError:
        return Settings()
    except OSError as exc:
        raise SettingsError(f"could not read the settings file {path} ({describe_os_error(exc)})") from exc
    except InvalidSettingsText as exc:
        raise SettingsError(f"the settings file {path} is invalid: {exc}") from exc
