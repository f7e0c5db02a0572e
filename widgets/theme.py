"""Light and dark themes that follow the system colour scheme.

``apply_theme(app, mode)`` sets the Fusion style (its fixed-colour standard icons replaced by palette-following
ones, widgets/themed_style.py), a palette and the matching style sheet
(``resources/styles/light.qss`` or ``dark.qss``). With mode ``"system"`` it reads the platform's colour scheme
(``QStyleHints.colorScheme()``, Qt 6.5+) and applies the matching theme again whenever the system scheme changes;
when the platform does not say (``Unknown``), the light theme is used. The palette colours here and the
style sheets are one design; change them together.
"""

from __future__ import annotations

import contextlib
import functools
from importlib import resources
from pathlib import Path
from typing import Literal

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from widgets.icons import icon
from widgets.themed_style import ThemedIconStyle

__all__ = ["THEME_MODES", "ThemeController", "apply_theme", "icon", "palette_for", "stylesheet"]

ThemeMode = Literal["system", "light", "dark"]
Scheme = Literal["light", "dark"]
THEME_MODES: tuple[str, ...] = ("system", "light", "dark")
APP_STYLE = "Fusion"
"""The widget style under the sheets: the same on every platform, and it honours the palette."""
STYLE_PACKAGE = "resources"
STYLE_FOLDER = "styles"
_STYLE_DIR_TOKEN = "@STYLE_DIR@"
_EXTRACTED = contextlib.ExitStack()  # keeps style images extracted from a zipped install for the process lifetime

_ROLE = QPalette.ColorRole
_PALETTES: dict[Scheme, dict[QPalette.ColorRole, str]] = {
    "light": {
        _ROLE.Window: "#f6f7f9", _ROLE.WindowText: "#1f2329", _ROLE.Base: "#ffffff", _ROLE.AlternateBase: "#f1f3f6",
        _ROLE.Text: "#1f2329", _ROLE.Button: "#f6f7f9", _ROLE.ButtonText: "#1f2329", _ROLE.BrightText: "#ffffff",
        _ROLE.Highlight: "#2f6fed", _ROLE.HighlightedText: "#ffffff", _ROLE.Link: "#2459c9",
        _ROLE.LinkVisited: "#6a4bc4", _ROLE.ToolTipBase: "#1f2329", _ROLE.ToolTipText: "#f6f7f9",
        _ROLE.PlaceholderText: "#8a919c", _ROLE.Mid: "#d9dde3", _ROLE.Midlight: "#e7eaee", _ROLE.Dark: "#b9bfc8",
        _ROLE.Light: "#ffffff", _ROLE.Shadow: "#9aa1ab",
    },
    "dark": {
        _ROLE.Window: "#1c1d21", _ROLE.WindowText: "#e4e6ea", _ROLE.Base: "#25272c", _ROLE.AlternateBase: "#2b2d33",
        _ROLE.Text: "#e4e6ea", _ROLE.Button: "#2b2d33", _ROLE.ButtonText: "#e4e6ea", _ROLE.BrightText: "#ffffff",
        _ROLE.Highlight: "#4c8dff", _ROLE.HighlightedText: "#ffffff", _ROLE.Link: "#7aa7ff",
        _ROLE.LinkVisited: "#b39cff", _ROLE.ToolTipBase: "#2b2d33", _ROLE.ToolTipText: "#e4e6ea",
        _ROLE.PlaceholderText: "#7d838e", _ROLE.Mid: "#3a3d45", _ROLE.Midlight: "#32353c", _ROLE.Dark: "#15161a",
        _ROLE.Light: "#3f424a", _ROLE.Shadow: "#0b0c0e",
    },
}
_DISABLED_TEXT: dict[Scheme, str] = {"light": "#a6acb5", "dark": "#5f646e"}


def palette_for(scheme: Scheme) -> QPalette:
    """The application palette of the light or dark theme."""
    palette = QPalette()
    for role, color in _PALETTES[scheme].items():
        palette.setColor(role, QColor(color))
    for role in (_ROLE.WindowText, _ROLE.Text, _ROLE.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(_DISABLED_TEXT[scheme]))
    return palette


@functools.cache
def _style_dir() -> str:
    """The style folder on disk, for the images a sheet names (extracted once if the package is not on disk)."""
    folder = resources.files(STYLE_PACKAGE).joinpath(STYLE_FOLDER)
    path = folder if isinstance(folder, Path) else _EXTRACTED.enter_context(resources.as_file(folder))
    return path.as_posix()


def stylesheet(scheme: Scheme) -> str:
    """The bundled style sheet of the light or dark theme, with its image paths filled in."""
    sheet = resources.files(STYLE_PACKAGE).joinpath(STYLE_FOLDER, f"{scheme}.qss").read_text(encoding="utf-8")
    return sheet.replace(_STYLE_DIR_TOKEN, _style_dir())


def scheme_for(mode: ThemeMode, system_scheme: Qt.ColorScheme) -> Scheme:
    """Which theme a mode means, given what the platform reports."""
    if mode == "system":
        return "dark" if system_scheme == Qt.ColorScheme.Dark else "light"
    return mode


class ThemeController(QObject):
    """Owns the application's theme: the chosen mode, and following the system scheme in mode ``"system"``.

    One lives on the application (a child of it); ``apply_theme`` finds or creates it.
    """

    scheme_applied = Signal(str)
    """Emitted with ``"light"`` or ``"dark"`` after a theme was applied."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.setObjectName("parleyThemeController")
        self._app = app
        self._mode: ThemeMode = "system"
        self._scheme: Scheme | None = None
        # before any sheet: once a sheet is set, style() is the sheet's proxy; the standard icons follow the palette
        app.setStyle(ThemedIconStyle(APP_STYLE))
        app.styleHints().colorSchemeChanged.connect(self._on_system_scheme_changed)

    @property
    def mode(self) -> ThemeMode:
        return self._mode

    @property
    def scheme(self) -> Scheme | None:
        """The theme applied last, or None before the first."""
        return self._scheme

    def set_mode(self, mode: str) -> None:
        if mode not in THEME_MODES:
            raise ValueError(f"theme mode must be one of {', '.join(THEME_MODES)}, not {mode!r}")
        self._mode = mode  # type: ignore[assignment]  # checked against THEME_MODES just above
        self._apply(scheme_for(self._mode, self._app.styleHints().colorScheme()))

    def _on_system_scheme_changed(self, system_scheme: Qt.ColorScheme) -> None:
        if self._mode == "system":
            self._apply(scheme_for("system", system_scheme))

    def _apply(self, scheme: Scheme) -> None:
        self._app.setPalette(palette_for(scheme))
        self._app.setStyleSheet(stylesheet(scheme))
        self._scheme = scheme
        self.scheme_applied.emit(scheme)


def apply_theme(app: QApplication, mode: str = "system") -> ThemeController:
    """Apply the ``"system"``, ``"light"`` or ``"dark"`` theme to ``app``; ``ValueError`` for another mode.

    Calling it again switches the mode; the same controller keeps following the system scheme.
    """
    controller = app.findChild(ThemeController, "parleyThemeController")
    if controller is None:
        controller = ThemeController(app)
    controller.set_mode(mode)
    return controller
