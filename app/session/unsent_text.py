"""The composer's unsent text survives quitting: saved when the app quits, put back when the window opens again.

The composer holds what the user is writing, and until now quitting dropped it: nothing asked, nothing kept. The
text is written at quit to ``unsent-message.txt`` in the data folder, the history's folder (it is a message of the
user's, kept where their sent ones are), and read back, then removed, when the next session attaches. A quit with
an empty composer removes any older file. A file that cannot be written is logged (the window is closing); one
that cannot be read is left in place and logged, so the text is still there to be found.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from widgets.main_window import MainWindow

UNSENT_NAME = "unsent-message.txt"

log = logging.getLogger(__name__)


def unsent_file(data_dir: str | None) -> Path:
    from app.paths import resolve_paths

    return resolve_paths(data_dir).data_dir / UNSENT_NAME


def save(window: MainWindow, data_dir: str | None) -> None:
    """Keep the composer's text for the next start (or forget an older one when the composer is empty)."""
    from app.errors import EnvironmentProblem
    from app.file_write import write_file_atomically

    path = unsent_file(data_dir)
    text = window.composer.text()
    try:
        if not text.strip():
            path.unlink(missing_ok=True)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        write_file_atomically(path, text)
    except (OSError, EnvironmentProblem) as problem:
        log.warning("the unsent message could not be kept in %s: %s", path, problem)


def restore(window: MainWindow, data_dir: str | None) -> None:
    """Put the text kept at the last quit back into the composer (before anything typed since), then forget it."""
    path = unsent_file(data_dir)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return
    except (OSError, UnicodeDecodeError) as problem:
        log.warning("the unsent message kept in %s could not be read: %s", path, problem)
        return
    window.composer.restore_text(text)
    try:
        path.unlink()
    except OSError as problem:  # it would come back once more at the next start: said, not fatal
        log.warning("the unsent message kept in %s could not be removed: %s", path, problem)
