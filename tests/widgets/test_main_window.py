"""Main window shortcuts and accessible names."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QAbstractButton, QWidget

from tests.support.main_window import exposed_main_window
from tests.support.run_script import RunScript
from widgets.drawer_space import (
    CHAT_DRAWER_WIDTH,
    CHAT_MIN_WIDTH,
    DRAWER_MAX_SHARE,
    DRAWER_MIN_WIDTH,
    SIDE_MIN_WIDTH,
)
from widgets.main_window import MainWindow

CTRL = Qt.KeyboardModifier.ControlModifier


def shown_window(qtbot) -> MainWindow:
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)  # window shortcuts need an active window
    return window


def test_ctrl_i_toggles_the_inspector(qtbot):
    window = shown_window(qtbot)
    assert not window.inspector.isVisible()
    with qtbot.waitSignal(window.inspector_shown):
        qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_I, CTRL)
    assert window.inspector.isVisible()
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_I, CTRL)
    assert not window.inspector.isVisible()


def test_ctrl_comma_asks_for_preferences_and_ctrl_n_for_a_new_chat(qtbot):
    window = shown_window(qtbot)
    with qtbot.waitSignal(window.preferences_requested):
        qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Comma, CTRL)
    with qtbot.waitSignal(window.conversations.new_chat_requested):
        qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_N, CTRL)


def test_ctrl_shift_c_copies_the_last_answer_and_esc_stops(qtbot):
    window = shown_window(qtbot)
    script = RunScript()
    for event in (script.started(), script.content("The answer "), script.content("is 42.")):
        window.handle_event(event)
    with qtbot.waitSignal(window.composer.stop_requested):
        qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Escape)
    window.handle_event(script.done())
    QGuiApplication.clipboard().clear()
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_C,
                   Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert QGuiApplication.clipboard().text() == "The answer is 42."


def test_panes_and_buttons_have_accessible_names(qtbot):
    window = shown_window(qtbot)
    window.inspector.show()
    named = [window.conversations, window.chat_view, window.composer.input_widget(), window.reasoning_pane,
             window.search_pane, window.inspector, window.inspector.runs, window.inspector.timeline,
             window.approval, window.panes, window.centre_stack]
    assert all(w.accessibleName() for w in named), [type(w).__name__ for w in named if not w.accessibleName()]
    unnamed = [b for b in window.findChildren(QAbstractButton)
               if b.isVisibleTo(window) and not (b.accessibleName() or b.text() or b.toolTip())]
    assert unnamed == [], [b.objectName() for b in unnamed]
    assert isinstance(window.inspector.widget(), QWidget)


def test_opening_the_inspector_keeps_the_sidebar_and_the_chat_usable(qtbot):
    window = exposed_main_window(qtbot, 1280, 820)
    window.panes.setMinimumWidth(300)  # as wide as search results make it
    qtbot.wait(50)  # the layout has taken in that minimum before the drawer opens
    before = window.splitter.sizes()
    window.toggle_inspector()
    side, chat, _panes = window.splitter.sizes()
    assert side >= SIDE_MIN_WIDTH and chat >= CHAT_MIN_WIDTH
    assert window.inspector.width() >= window.width() - side - CHAT_DRAWER_WIDTH - 40  # the room the panes gave up
    assert chat >= CHAT_DRAWER_WIDTH  # the sidebar and the drawer yielded first (user pass 4)
    assert DRAWER_MIN_WIDTH <= window.inspector.width() <= DRAWER_MAX_SHARE * window.width()
    search = window.conversations.search_box
    assert search.width() > search.fontMetrics().horizontalAdvance(search.placeholderText())  # not "Search con…"
    window.toggle_inspector()
    assert not window.inspector.isVisible() and window.panes.isVisible()
    assert window.splitter.sizes() == before


def test_closing_the_drawer_by_its_own_button_gives_the_room_back(qtbot):
    window = exposed_main_window(qtbot, 1280, 820)
    before = window.splitter.sizes()
    window.toggle_inspector()
    assert not window.panes.isVisible()  # no room for them at this width
    window.inspector.close()  # the dock's close button
    assert not window.inspector.isVisible() and window.panes.isVisible()
    assert window.splitter.sizes() == before


def test_a_narrow_window_shortens_the_pane_tabs_instead_of_cutting_the_last_one(qtbot):
    window = exposed_main_window(qtbot, 520, 700)  # as narrow as the window goes
    bar = window.panes.tabBar()
    assert bar.tabRect(bar.count() - 1).right() < bar.width()  # every tab ends inside the bar
    assert [window.panes.tabToolTip(i) for i in range(bar.count())] == ["Reasoning", "Search results"]


def test_the_status_bar_counts_the_tokens_of_the_whole_run(qtbot):
    from orchestration.events import Usage

    window = shown_window(qtbot)
    script = RunScript()
    window.handle_event(script.started())
    window.handle_event(script.factory.make(Usage, input_tokens=1200, output_tokens=7))  # the call asking for a tool
    script.next_call()
    window.handle_event(script.factory.make(Usage, input_tokens=1400, output_tokens=300))  # the answer
    window.handle_event(script.done())
    assert window.usage_label.text() == "2,600 in · 307 out"  # as the inspector's run line and the history count
    second = RunScript("run-2")
    window.handle_event(second.started())
    window.handle_event(second.factory.make(Usage, input_tokens=10, output_tokens=2))
    assert window.usage_label.text() == "10 in · 2 out"  # a new run starts from zero
