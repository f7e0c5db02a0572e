"""Remembering the main window's layout across restarts, in a small INI file beside settings.json.

The layout (widgets/window_layout.py: position, size, maximised, column widths, which panes were open) is read
before the window is first shown and written when the app quits (app/session/gui.py). Reading it must not delay the
first paint, so this module uses only Qt (QSettings, QStandardPaths), already loaded by then: no settings
model, no platformdirs. The file is ``window-state.ini`` in the config folder: ``<home>/config`` under
``--data-dir`` or ``$PARLEY_HOME``, else the folder platformdirs gives settings.json, found here through
QStandardPaths (the same folder on Linux, Windows and macOS; tests/app/test_window_state.py checks it here).
A missing, damaged or foreign file means the default layout; a file that cannot be written is logged, since
the window is already gone when it is saved.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, QSettings, QStandardPaths

from app.paths import APP_NAME, home_override
from widgets.main_window import MainWindow
from widgets.window_layout import REASONING, SEARCH, WindowLayout, capture, restore

WINDOW_STATE_NAME = "window-state.ini"
FORMAT_VERSION = 1
MAX_SIDE_PX = 100_000
"""A saved position, size or column width past this (either sign) is not a real one: the file is ignored."""

log = logging.getLogger(__name__)


def state_file(data_dir: str | os.PathLike[str] | None = None) -> Path:
    home = home_override(data_dir)
    if home is not None:
        return home / "config" / WINDOW_STATE_NAME
    # platformdirs' user_config_dir: $XDG_CONFIG_HOME (~/.config) on Linux, %LOCALAPPDATA% on Windows,
    # ~/Library/Application Support on macOS; each plus the app's name
    kind = (QStandardPaths.StandardLocation.GenericDataLocation if sys.platform == "darwin"
            else QStandardPaths.StandardLocation.GenericConfigLocation)
    return Path(QStandardPaths.writableLocation(kind)) / APP_NAME / WINDOW_STATE_NAME


def _int(text: object) -> int:
    value = int(str(text))
    if abs(value) > MAX_SIDE_PX:
        raise ValueError(f"{value} is out of range")
    return value


def _flag(text: object) -> bool:
    if str(text).lower() not in ("true", "false"):
        raise ValueError(f"{text!r} is not true or false")
    return str(text).lower() == "true"


def load(path: Path) -> WindowLayout | None:
    """The saved layout, or None when there is none or it cannot be read as one (the defaults apply)."""
    if not path.is_file():
        return None
    store = QSettings(str(path), QSettings.Format.IniFormat)
    if store.status() != QSettings.Status.NoError or store.value("version") != str(FORMAT_VERSION):
        log.warning("Ignoring the window layout in %s: not a layout this version wrote", path)
        return None
    try:
        splitter_text = str(store.value("splitter", ""))
        pane = str(store.value("pane", REASONING))
        layout = WindowLayout(
            x=_int(store.value("x")), y=_int(store.value("y")),
            width=_int(store.value("width")), height=_int(store.value("height")),
            maximized=_flag(store.value("maximized", "false")),
            splitter=tuple(_int(part) for part in splitter_text.split(",")) if splitter_text else (),
            panes_shown=_flag(store.value("panes_shown", "true")),
            pane=pane if pane in (REASONING, SEARCH) else REASONING,
            inspector_open=_flag(store.value("inspector_open", "false")),
            resting_width=_int(store.value("resting_width", "0")))
    except ValueError as problem:
        log.warning("Ignoring the window layout in %s: %s", path, problem)
        return None
    return layout if layout.width > 0 and layout.height > 0 else None


def save(path: Path, layout: WindowLayout) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as problem:
        log.warning("Could not save the window layout to %s: %s", path, problem)
        return
    store = QSettings(str(path), QSettings.Format.IniFormat)
    store.clear()
    values: dict[str, str] = {
        "version": str(FORMAT_VERSION), "x": str(layout.x), "y": str(layout.y), "width": str(layout.width),
        "height": str(layout.height), "maximized": str(layout.maximized).lower(),
        "splitter": ",".join(str(size) for size in layout.splitter),
        "panes_shown": str(layout.panes_shown).lower(), "pane": layout.pane,
        "inspector_open": str(layout.inspector_open).lower(), "resting_width": str(layout.resting_width)}
    for key, value in values.items():
        store.setValue(key, value)
    store.sync()
    if store.status() != QSettings.Status.NoError:
        log.warning("Could not save the window layout to %s (%s)", path, store.status().name)


def restore_window(window: MainWindow, data_dir: str | os.PathLike[str] | None = None) -> None:
    """Before the first ``show()``: the layout saved last time, if there is one."""
    layout = load(state_file(data_dir))
    if layout is not None:
        restore(window, layout)


def remember_window(window: MainWindow, data_dir: str | os.PathLike[str] | None = None) -> None:
    """The window's layout now, for the next start."""
    save(state_file(data_dir), capture(window))


class _SaveOnClose(QObject):
    def __init__(self, window: MainWindow, data_dir: str | os.PathLike[str] | None) -> None:
        super().__init__(window)
        self._window, self._data_dir = window, data_dir

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() == QEvent.Type.Close:
            remember_window(self._window, self._data_dir)
        return False


def remember_on_close(window: MainWindow, data_dir: str | os.PathLike[str] | None = None) -> None:
    """Save the layout when the window closes (its close button, File > Quit, or the app quitting), while its
    panes are still as the user left them: once it is closed the inspector drawer has given its room back."""
    window.installEventFilter(_SaveOnClose(window, data_dir))
