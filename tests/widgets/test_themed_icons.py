"""Every icon Qt's style draws for Parley's windows reads on both themes: the usage dialog's Close, the run
inspector's float and close buttons, the menu bar's overflow arrow, the search box's clear button, arrows."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtWidgets import QAbstractButton, QApplication, QDialogButtonBox, QStyle

from tests.widgets.test_theme import themed_app  # noqa: F401  (the fixture)
from widgets.main_window import MainWindow
from widgets.theme import apply_theme
from widgets.themed_style import THEMED_ICONS
from widgets.usage_dialog import UsageDialog

MIN_CONTRAST = 3.0
"""WCAG's least contrast for graphics that carry meaning (1.4.11, non-text contrast)."""


def _relative_luminance(colour: QColor) -> float:
    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4
    return 0.2126 * linear(colour.redF()) + 0.7152 * linear(colour.greenF()) + 0.0722 * linear(colour.blueF())


def contrast(drawn: QIcon, background: QColor) -> float:
    """The contrast between the icon's strongest ink (its opaque pixels) and the background it sits on."""
    image = drawn.pixmap(QSize(24, 24)).toImage()
    inks = [image.pixelColor(x, y) for x in range(image.width()) for y in range(image.height())]
    inks = [ink for ink in inks if ink.alpha() > 200]
    assert inks, "the icon draws nothing"
    back = _relative_luminance(background)
    return max((max(_relative_luminance(ink), back) + 0.05) / (min(_relative_luminance(ink), back) + 0.05)
               for ink in inks)


def button_colour(app: QApplication) -> QColor:
    return app.palette().color(QPalette.ColorRole.Button)


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_the_replaced_standard_icons_read_on_both_themes(themed_app, scheme):  # noqa: F811
    apply_theme(themed_app, scheme)
    for standard in THEMED_ICONS:
        assert contrast(themed_app.style().standardIcon(standard), button_colour(themed_app)) >= MIN_CONTRAST, \
            standard.name


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_the_usage_dialogs_close_icon_reads_on_both_themes(qtbot, themed_app, scheme):  # noqa: F811
    apply_theme(themed_app, scheme)
    dialog = UsageDialog()
    qtbot.addWidget(dialog)
    close = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Close)
    # the icon the button box gives Close on platforms that put icons on dialog buttons (most Linux desktops)
    drawn = close.style().standardIcon(QStyle.StandardPixmap.SP_DialogCloseButton, None, close)
    assert contrast(drawn, button_colour(themed_app)) >= MIN_CONTRAST


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_every_icon_in_the_main_window_reads_on_both_themes(qtbot, themed_app, scheme):  # noqa: F811
    apply_theme(themed_app, scheme)
    window = MainWindow()
    qtbot.addWidget(window)
    window.follow_theme(scheme)
    window.resize(1280, 820)
    window.show()
    qtbot.waitExposed(window)
    window.toggle_inspector()  # its title bar's float and close buttons
    window.menuBar().setMaximumWidth(60)  # too narrow for its menus: the overflow button shows
    window.conversations.search_box.setText("lisbon")  # the clear button shows
    qtbot.wait(30)
    checked = []
    for button in window.findChildren(QAbstractButton):
        if button.isVisible() and not button.icon().isNull():
            name = button.objectName() or button.accessibleName() or button.text()
            if button.objectName() == "sendButton":
                continue  # white on the accent colour, which the style sheet gives it
            assert contrast(button.icon(), button_colour(themed_app)) >= MIN_CONTRAST, name
            checked.append(name)
    assert {"qt_dockwidget_floatbutton", "qt_dockwidget_closebutton", "qt_menubar_ext_button"} <= set(checked)
