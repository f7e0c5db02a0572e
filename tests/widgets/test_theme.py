"""Themes: light/dark palettes and sheets, following the system colour scheme, and the sheets' integrity."""

from __future__ import annotations

import re
from importlib import resources

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from tests.support.run_script import RunScript, search_hit
from widgets.composer import Composer
from widgets.reasoning_pane import ReasoningPane
from widgets.search_results_pane import SearchResultsPane
from widgets.theme import ThemeController, apply_theme, palette_for, stylesheet
from widgets.warning_banner import WarningBanner

STYLES = resources.files("resources").joinpath("styles")


@pytest.fixture
def themed_app(qapp):
    """The application, with its style, palette and sheet restored and the theme controller removed afterwards."""
    style, palette, sheet = qapp.style().name(), qapp.palette(), qapp.styleSheet()
    yield qapp
    for controller in qapp.findChildren(ThemeController):
        controller.deleteLater()
    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    qapp.setStyleSheet(sheet)
    if style:  # empty when a sheet was already set: the style is then the sheet's proxy and stays as it is
        qapp.setStyle(style)
    qapp.setPalette(palette)


def window_color(app) -> str:
    return app.palette().color(QPalette.ColorRole.Window).name()


def test_light_and_dark_apply_their_palette_and_sheet(themed_app):
    controller = apply_theme(themed_app, "dark")
    assert controller.scheme == "dark"
    assert window_color(themed_app) == palette_for("dark").color(QPalette.ColorRole.Window).name()
    assert themed_app.styleSheet() == stylesheet("dark")
    apply_theme(themed_app, "light")
    assert controller.scheme == "light"
    assert themed_app.styleSheet() == stylesheet("light")
    assert window_color(themed_app) != palette_for("dark").color(QPalette.ColorRole.Window).name()


def test_system_mode_follows_the_system_scheme_when_it_changes(themed_app):
    controller = apply_theme(themed_app, "system")
    applied: list[str] = []
    controller.scheme_applied.connect(applied.append)
    hints = themed_app.styleHints()
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert controller.scheme == "dark"
    assert themed_app.styleSheet() == stylesheet("dark")
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert controller.scheme == "light"
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Unknown)
    assert controller.scheme == "light", "an unknown system scheme means light"
    assert applied == ["dark", "light", "light"]


def test_an_explicit_mode_ignores_system_changes_and_one_controller_serves_repeated_calls(themed_app):
    first = apply_theme(themed_app, "light")
    second = apply_theme(themed_app, "light")
    assert first is second
    applied: list[str] = []
    first.scheme_applied.connect(applied.append)
    themed_app.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert first.scheme == "light"
    assert applied == []
    apply_theme(themed_app, "system")
    themed_app.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert applied == ["light", "dark"], "re-applying reacts once per change, not once per apply_theme call"


def test_unknown_mode_is_refused(themed_app):
    with pytest.raises(ValueError, match="theme mode must be one of system, light, dark"):
        apply_theme(themed_app, "sepia")


def selectors(sheet: str) -> list[str]:
    without_comments = re.sub(r"/\*.*?\*/", "", sheet, flags=re.S)
    return [selector.strip() for selector in re.findall(r"([^{}]+)\{", without_comments)]


def test_light_and_dark_sheets_style_the_same_selectors():
    light = (STYLES / "light.qss").read_text(encoding="utf-8")
    dark = (STYLES / "dark.qss").read_text(encoding="utf-8")
    assert selectors(light) == selectors(dark)
    assert "#composerFrame" in light and "#sendButton[running=\"true\"]" in light


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_images_named_by_a_sheet_exist(scheme):
    paths = re.findall(r'url\("([^"]+)"\)', stylesheet(scheme))
    assert paths
    for path in paths:
        assert resources.files("resources").joinpath("styles", path.rsplit("/", 1)[-1]).is_file(), path
        assert "@STYLE_DIR@" not in path


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_every_widget_renders_under_each_theme_without_qt_warnings(qtbot, themed_app, mode):
    apply_theme(themed_app, mode)
    window = QWidget()
    qtbot.addWidget(window)
    banner, composer = WarningBanner(), Composer()
    reasoning, results = ReasoningPane(), SearchResultsPane(open_url=lambda url: True)
    tabs = QTabWidget()
    tabs.addTab(reasoning, "Reasoning")
    tabs.addTab(results, "Search")
    layout = QVBoxLayout(window)
    for widget in (banner, tabs, composer):
        layout.addWidget(widget)
    script = RunScript()
    events = [script.started(), script.reasoning("thinking"), *script.search("q", [search_hit("https://a.org/x")]),
              *script.fetch("https://a.org/x", "X"), script.warning("TOOL_CLAMP", "clamped"), script.done()]
    for event in events:
        for widget in (banner, reasoning, results):
            widget.handle_event(event)
    composer.set_models([("local", "m")])
    composer.set_running(True)
    window.resize(900, 700)
    window.show()
    qtbot.waitExposed(window)
    frame = window.findChild(QWidget, "composerFrame")
    surface = frame.grab().toImage().pixelColor(frame.width() // 2, 3)
    assert surface == palette_for(mode).color(QPalette.ColorRole.Base), "the composer is drawn on the surface colour"
    send = window.findChild(QWidget, "sendButton")
    background = send.grab().toImage().pixelColor(send.width() // 2, 3)
    assert background.red() > background.blue(), "the running Send button is drawn red (Stop)"
