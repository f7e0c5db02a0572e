"""The panes the window starts without (search results, approval, inspector) are built when first needed, and
one built late shows what it would have shown had it been there from the start (widgets/main_window.py)."""

from __future__ import annotations

from orchestration.run_trace import RunTrace
from tests.support.run_script import RunScript, search_hit
from tools.mcp.status import ServerStatus
from widgets import conversation_display
from widgets.conversation_state import ConversationState
from widgets.main_window import SEARCH_TAB, MainWindow


def _window(qtbot) -> MainWindow:
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    return window


def _stored_search_run() -> ConversationState:
    script = RunScript()
    state = ConversationState(7)
    for event in (script.started(), *script.search("otters", [search_hit("https://a.example/", "Otters")]),
                  script.content("They use stones."), script.done()):
        state.fold(event)
    return state


def test_the_window_starts_without_the_hidden_panes(qtbot):
    window = _window(qtbot)
    assert window.built_search_pane() is None and window.built_inspector() is None
    assert window._approval is None
    window.clear_approval()  # a new chat on screen: nothing to clear, nothing built
    conversation_display.show_state(window, ConversationState(None), [])
    assert window.built_search_pane() is None and window.built_inspector() is None and window._approval is None


def test_choosing_the_search_tab_builds_the_pane_in_its_place(qtbot):
    window = _window(qtbot)
    window.panes.setCurrentIndex(SEARCH_TAB)
    pane = window.built_search_pane()
    assert pane is not None and window.panes.currentWidget() is pane
    assert window.panes.tabText(SEARCH_TAB) == "Search results" and window.panes.count() == 2
    assert pane.isVisible()


def test_a_conversation_shown_before_the_panes_exist_fills_them_when_they_are_built(qtbot):
    window = _window(qtbot)
    state = _stored_search_run()
    conversation_display.show_state(window, state, [])
    assert [entry.title for entry in window.search_pane.entries()] == ["Otters"]
    window.toggle_inspector()
    assert window.inspector.trace is state.trace
    assert window.inspector.timeline_rows(), "the drawer opened on an empty timeline"


def test_the_inspector_opened_late_shows_the_trace_and_mcp_servers_it_was_given(qtbot):
    window = _window(qtbot)
    trace = RunTrace.from_events(_stored_search_run().events)
    window.show_run_trace(trace)
    window.set_mcp_servers([ServerStatus("time", "stdio", "running", None, ("get_current_time", "convert_time"))])
    assert window.built_inspector() is None
    window.toggle_inspector()
    inspector = window.inspector
    assert inspector.isVisible() and inspector.trace is trace
    assert inspector.timeline_rows()
    assert inspector.mcp_servers.text() == "MCP time: running, 2 tools"


def test_the_first_run_event_builds_the_panes_that_take_it(qtbot):
    window = _window(qtbot)
    script = RunScript()
    for event in (script.started(), *script.search("crows", [search_hit("https://b.example/", "Crows")])):
        window.handle_event(event)
    assert [entry.title for entry in window.search_pane.entries()] == ["Crows"]
    assert window.panes.currentWidget() is window.search_pane  # it asked to be shown on its first result
    assert window.built_inspector() is not None and window.inspector.runs.count() == 1


def test_inspector_signals_reach_the_window_once_it_is_built(qtbot):
    window = _window(qtbot)
    with qtbot.waitSignal(window.inspector_run_selected) as selected:
        window.inspector.run_selected.emit("run-9")
    assert selected.args == ["run-9"]


def test_remembering_the_layout_builds_no_pane_and_a_saved_search_tab_builds_its_pane(qtbot):
    from widgets.window_layout import SEARCH, capture, restore

    window = _window(qtbot)
    layout = capture(window)  # at quit: what is on screen, without building what never was
    assert layout.pane != SEARCH and not layout.inspector_open
    assert window.built_search_pane() is None and window.built_inspector() is None
    window.panes.setCurrentIndex(SEARCH_TAB)
    assert capture(window).pane == SEARCH
    again = MainWindow()
    qtbot.addWidget(again)
    restore(again, capture(window))
    assert again.built_search_pane() is not None and again.panes.currentWidget() is again.search_pane
