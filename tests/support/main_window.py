"""The real main window, sized and shown offscreen, for widget tests that measure layout: one setup instead of
the same five lines in each test."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from widgets.main_window import MainWindow


def exposed_main_window(qtbot, width: int, height: int) -> MainWindow:
    """A MainWindow resized to ``width`` x ``height``, shown, and exposed (laid out) before the test goes on;
    qtbot closes it after the test."""
    from widgets.main_window import MainWindow  # here: importing this module stays as cheap as the test's own

    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(width, height)
    window.show()
    qtbot.waitExposed(window)
    return window


def active_main_window(qtbot) -> MainWindow:
    """A MainWindow shown and made the active window (its shortcuts need one); qtbot closes it after the test."""
    from widgets.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    return window
