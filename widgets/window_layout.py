"""The main window's layout as plain values: read it on quit, put it back on the next start.

What is kept: the window's position and size (and whether it was maximised), the widths of the sidebar, chat
and right panes, whether the right panes were shown and on which tab, and whether the run inspector was open.
With the inspector open the size kept is the window's as shown (it may have been resized with the drawer open),
with the width to give back when the drawer closes; a start opens the drawer in that size without growing the
window again (a window resized to 1300 px at x=60 came back 1400 px wide at x=0: found in the user pass).
``capture`` reads it from a window; ``restore`` puts it back before the window is first shown, fitted to the
screens there are now (``fit_to_screens``): a window saved on a monitor that is gone comes back on the primary
screen, and one bigger than the screen is shrunk to it. Where the values are stored is the app's business
(app/session/window_state.py); this module only knows the window.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QGuiApplication

from widgets.main_window import SEARCH_TAB

if TYPE_CHECKING:
    from widgets.main_window import MainWindow

TITLE_ALLOWANCE_PX = 32
"""Room kept above and around a restored window for its title bar, which is not part of its size."""
MIN_VISIBLE_PX = 120
"""How much of a saved window (width and height) must overlap a screen for it to count as on that screen."""
REASONING, SEARCH = "reasoning", "search"


@dataclass(frozen=True)
class WindowLayout:
    x: int  # the frame's top-left, as ``QWidget.pos()``
    y: int
    width: int  # the window's own size, without its frame
    height: int
    maximized: bool = False
    splitter: tuple[int, ...] = ()  # sidebar, chat, right panes
    panes_shown: bool = True
    pane: str = REASONING  # the right panes' tab
    inspector_open: bool = False
    resting_width: int = 0  # with the inspector open: the width it gives back when it closes (0: not saved)


def fit_to_screens(rect: QRect, screens: list[QRect], primary: QRect) -> QRect:
    """``rect`` (frame position, window size) moved and shrunk to lie inside one screen's available area.

    The screen is the one it overlaps most (by at least ``MIN_VISIBLE_PX`` each way), else the primary screen,
    where a window from a missing monitor is centred."""
    def overlap(screen: QRect) -> int:
        shared = screen.intersected(rect)
        if shared.width() < MIN_VISIBLE_PX or shared.height() < MIN_VISIBLE_PX:
            return 0
        return shared.width() * shared.height()

    best = max(screens, key=overlap, default=None)
    on_screen = best is not None and overlap(best) > 0
    screen = best if on_screen and best is not None else primary
    width = min(rect.width(), screen.width())
    height = min(rect.height(), screen.height() - TITLE_ALLOWANCE_PX)
    if not on_screen:
        return QRect(screen.x() + (screen.width() - width) // 2,
                     screen.y() + (screen.height() - height - TITLE_ALLOWANCE_PX) // 2, width, height)
    x = min(max(rect.x(), screen.x()), screen.x() + screen.width() - width)
    y = min(max(rect.y(), screen.y()), screen.y() + screen.height() - height - TITLE_ALLOWANCE_PX)
    return QRect(x, y, width, height)


def capture(window: MainWindow) -> WindowLayout:
    """The window's layout as the user left it: with the inspector open, its size and place as they are (the
    drawer's room included, as the user may have resized it since) and the width without the drawer."""
    resting, sizes, panes_shown = window.resting_layout()
    geometry = window.normalGeometry() if window.isMaximized() else window.geometry()
    position = window.pos() if not window.isMaximized() else geometry.topLeft()
    pane = SEARCH if window.panes.currentIndex() == SEARCH_TAB else REASONING  # built or not (main_window.py)
    inspector = window.built_inspector()  # a drawer never built was never open
    docked = inspector is not None and inspector.isVisibleTo(window) and not inspector.isFloating()
    width = geometry.width() if window.isMaximized() or docked else resting
    return WindowLayout(x=position.x(), y=position.y(), width=width, height=geometry.height(),
                        maximized=window.isMaximized(), splitter=tuple(sizes), panes_shown=panes_shown, pane=pane,
                        inspector_open=inspector is not None and inspector.isVisibleTo(window),
                        resting_width=resting if docked and not window.isMaximized() else 0)


def restore(window: MainWindow, layout: WindowLayout) -> None:
    """Put ``layout`` back on ``window`` before it is first shown, fitted to the screens there are now."""
    screens = [screen.availableGeometry() for screen in QGuiApplication.screens()]
    primary_screen = QGuiApplication.primaryScreen()
    primary = primary_screen.availableGeometry() if primary_screen is not None else QRect(0, 0, 1280, 820)
    fitted = fit_to_screens(QRect(QPoint(layout.x, layout.y), QSize(layout.width, layout.height)),
                            screens, primary)
    screen = QGuiApplication.screenAt(fitted.center())
    if screen is not None:  # before the first show a window counts as on the primary screen; the drawer asks
        window.setScreen(screen)
    window.resize(fitted.size())
    window.move(fitted.topLeft())
    window_layout = window.layout()
    if window_layout is not None:  # the splitter gets its width now, so the saved columns are not rescaled
        window_layout.activate()
    if len(layout.splitter) == window.splitter.count() and all(size >= 0 for size in layout.splitter):
        window.splitter.setSizes(list(layout.splitter))
    window.panes.setCurrentWidget(window.search_pane if layout.pane == SEARCH else window.reasoning_pane)
    window.panes.setVisible(layout.panes_shown)
    if layout.maximized:
        window.setWindowState(window.windowState() | Qt.WindowState.WindowMaximized)
    if layout.inspector_open and layout.resting_width > 0:  # the saved size has the drawer's room already
        sizes = list(layout.splitter) if len(layout.splitter) == window.splitter.count() else []
        window.reopen_inspector(min(layout.resting_width, fitted.width()), sizes)
    elif layout.inspector_open:
        window.toggle_inspector()
