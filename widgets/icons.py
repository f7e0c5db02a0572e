"""The bundled SVG icons, drawn in the current palette's text colour.

The icons in ``resources/icons`` are single-colour line drawings that stroke or fill with ``currentColor``.
``icon(name)`` returns a QIcon whose engine substitutes the application palette's colour at paint time, so one
icon follows a switch between the light and dark theme without being created again. Files are read through
``importlib.resources`` so they are found the same way in a checkout, an editable install and a wheel.
"""

from __future__ import annotations

import functools
from importlib import resources

from PySide6.QtCore import QByteArray, QPoint, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QIconEngine, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer

ICON_PACKAGE = "resources"
ICON_FOLDER = "icons"
PIXMAP_CACHE_ENTRIES = 512
"""Rendered pixmaps kept (name, colour, size, scale); a window uses a few dozen."""

DISABLED_FIXED_COLOR_OPACITY = 0.4
"""A disabled icon with a fixed colour is drawn at this opacity (palette icons use the Disabled colour group)."""

_COLOR_TOKEN = "currentColor"


@functools.cache
def icon_names() -> tuple[str, ...]:
    """Names of all bundled icons (file names without ``.svg``), sorted."""
    folder = resources.files(ICON_PACKAGE).joinpath(ICON_FOLDER)
    return tuple(sorted(entry.name.removesuffix(".svg") for entry in folder.iterdir() if entry.name.endswith(".svg")))


@functools.cache
def icon_svg(name: str) -> str:
    """The SVG source of a bundled icon; ``KeyError`` naming the known icons when there is none by that name."""
    if name not in icon_names():
        raise KeyError(f"no bundled icon {name!r}; known: {', '.join(icon_names())}")
    return resources.files(ICON_PACKAGE).joinpath(ICON_FOLDER, f"{name}.svg").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=PIXMAP_CACHE_ENTRIES)
def _rendered(name: str, color: str, opacity: float, width: int, height: int, scale: float) -> QPixmap:
    # SVG colours have no alpha in the #rrggbb form QtSvg reads, so transparency is applied while painting.
    renderer = QSvgRenderer(QByteArray(icon_svg(name).replace(_COLOR_TOKEN, color).encode("utf-8")))
    pixmap = QPixmap(QSize(round(width * scale), round(height * scale)))
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setOpacity(opacity)
    renderer.render(painter, QRectF(0, 0, pixmap.width(), pixmap.height()))
    painter.end()
    pixmap.setDevicePixelRatio(scale)
    return pixmap


def _palette_color(mode: QIcon.Mode) -> QColor:
    palette = QGuiApplication.palette()
    if mode == QIcon.Mode.Disabled:
        return palette.color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText)
    if mode == QIcon.Mode.Selected:
        return palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.HighlightedText)
    return palette.color(QPalette.ColorGroup.Active, QPalette.ColorRole.ButtonText)


class ThemedSvgIconEngine(QIconEngine):
    """Paints one bundled SVG in a fixed colour, or in the palette's colour for the icon mode when none is given."""

    def __init__(self, name: str, color: QColor | None = None) -> None:
        super().__init__()
        icon_svg(name)  # fail now, not at first paint, for an unknown name
        self._name = name
        self._color = QColor(color) if color is not None else None

    def _color_for(self, mode: QIcon.Mode) -> tuple[str, float]:
        """The colour as ``#rrggbb`` and its opacity for ``mode``."""
        color = self._color if self._color is not None else _palette_color(mode)
        opacity = color.alphaF()
        if self._color is not None and mode == QIcon.Mode.Disabled:
            opacity *= DISABLED_FIXED_COLOR_OPACITY
        return color.name(QColor.NameFormat.HexRgb), opacity

    def clone(self) -> QIconEngine:
        return ThemedSvgIconEngine(self._name, self._color)

    def key(self) -> str:
        return "parley-themed-svg"

    def iconName(self) -> str:
        return self._name

    def isNull(self) -> bool:
        return False

    def availableSizes(self, mode: QIcon.Mode = QIcon.Mode.Normal, state: QIcon.State = QIcon.State.Off) -> list[QSize]:
        return []

    def actualSize(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QSize:
        return size

    def scaledPixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State, scale: float) -> QPixmap:
        if size.isEmpty():
            return QPixmap()
        color, opacity = self._color_for(mode)
        return _rendered(self._name, color, opacity, size.width(), size.height(), max(scale, 1.0))

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        return self.scaledPixmap(size, mode, state, 1.0)

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        pixmap = self.scaledPixmap(rect.size(), mode, state, painter.device().devicePixelRatioF())
        if not pixmap.isNull():
            painter.drawPixmap(QPoint(rect.x(), rect.y()), pixmap)


def icon(name: str, color: QColor | str | None = None) -> QIcon:
    """A bundled icon; drawn in ``color`` if given, else in the palette's text colour at each paint."""
    return QIcon(ThemedSvgIconEngine(name, QColor(color) if color is not None else None))
