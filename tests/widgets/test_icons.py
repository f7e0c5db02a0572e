"""The bundled SVG icons: all present, valid, single-colour, and drawn in the palette's colour."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import QByteArray, QSize
from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtSvg import QSvgRenderer

from widgets.icons import icon, icon_names, icon_svg

REQUIRED = ["send", "stop", "new-chat", "search", "settings", "tools", "reasoning", "inspector", "copy", "close",
            "chevron-down", "chevron-up", "chevron-left", "chevron-right", "warning"]


def test_the_icons_the_window_needs_are_bundled():
    assert set(REQUIRED) <= set(icon_names())


@pytest.mark.parametrize("name", icon_names())
def test_each_icon_is_valid_single_colour_svg(qapp, name):
    source = icon_svg(name)
    assert QSvgRenderer(QByteArray(source.encode())).isValid()
    assert "currentColor" in source
    assert not re.search(r"#[0-9a-fA-F]{3,8}\b", source), "colours come from the palette, not the file"


def test_unknown_icon_names_fail_loudly(qapp):
    with pytest.raises(KeyError, match="no bundled icon 'sned'"):
        icon("sned")


@pytest.fixture
def restored_palette(qapp):
    palette = qapp.palette()
    yield qapp
    qapp.setPalette(palette)


def centre_colour(drawn: QIcon, mode: QIcon.Mode = QIcon.Mode.Normal) -> QColor:
    return drawn.pixmap(QSize(24, 24), mode).toImage().pixelColor(12, 12)  # inside the filled square of "stop"


def test_icons_follow_the_palette_at_paint_time(restored_palette):
    stop = icon("stop")
    palette = restored_palette.palette()
    palette.setColor(QPalette.ColorRole.ButtonText, QColor("#c03030"))
    palette.setColor(QPalette.ColorGroup.Disabled, QPalette.ColorRole.ButtonText, QColor("#909090"))
    restored_palette.setPalette(palette)
    assert centre_colour(stop) == QColor("#c03030")
    assert centre_colour(stop, QIcon.Mode.Disabled) == QColor("#909090")
    palette.setColor(QPalette.ColorRole.ButtonText, QColor("#30c030"))
    restored_palette.setPalette(palette)
    assert centre_colour(stop) == QColor("#30c030"), "the same icon object repaints in the new colour"


def test_a_fixed_colour_wins_and_is_faded_when_disabled(qapp):
    stop = icon("stop", "#ffffff")
    assert centre_colour(stop) == QColor("#ffffff")
    assert centre_colour(stop, QIcon.Mode.Disabled).alpha() < 255


def test_icons_render_sharp_on_high_dpi_screens(qapp):
    pixmap = icon("send").pixmap(QSize(16, 16), 2.0)
    assert pixmap.size() == QSize(32, 32)
    assert pixmap.devicePixelRatio() == 2.0
