"""The warning banner: each code once per run, stacked messages, stays until closed, stored warnings come back,
errors not shown."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QWidget

from tests.support.run_script import RunScript
from widgets.warning_banner import WarningBanner


@pytest.fixture
def banner(qtbot) -> WarningBanner:
    widget = WarningBanner()
    qtbot.addWidget(widget)
    return widget


def test_hidden_until_a_warning_arrives(qtbot, banner):
    script = RunScript()
    banner.handle_event(script.started())
    banner.handle_event(script.content("text"))
    assert banner.isHidden()
    banner.handle_event(script.warning("TOOL_CLAMP", "Only the first 6 tool calls were run."))
    assert not banner.isHidden()
    assert banner.messages() == ["Only the first 6 tool calls were run."]


def test_each_code_is_shown_once_per_run_and_messages_stack(qtbot, banner):
    script = RunScript()
    banner.handle_event(script.started())
    banner.handle_event(script.warning("ARGUMENTS_REPAIRED", "Repaired the arguments of web_search."))
    banner.handle_event(script.warning("ARGUMENTS_REPAIRED", "Repaired the arguments of fetch_url."))
    banner.handle_event(script.warning("MAX_ITERATIONS", "Stopped calling tools after 10 rounds."))
    assert banner.messages() == ["Repaired the arguments of web_search.", "Stopped calling tools after 10 rounds."]
    label = banner.findChild(QWidget, "bannerMessage")
    assert label.text() == "Repaired the arguments of web_search.\nStopped calling tools after 10 rounds."


def test_the_same_code_shows_again_in_the_next_run(qtbot, banner):
    first = RunScript("run-a")
    banner.handle_event(first.started())
    banner.handle_event(first.warning("TOOL_CLAMP", "first run"))
    banner.dismiss()
    banner.handle_event(first.warning("TOOL_CLAMP", "first run again"))
    assert banner.isHidden(), "closing does not make a code shown twice in one run"
    second = RunScript("run-b")
    banner.handle_event(second.started())
    banner.handle_event(second.warning("TOOL_CLAMP", "second run"))
    assert banner.messages() == ["second run"]
    banner.handle_event(first.warning("MAX_ITERATIONS", "late, from the first run"))
    assert banner.messages() == ["second run"]


def test_errors_are_not_shown_in_the_banner(qtbot, banner):
    script = RunScript()
    banner.handle_event(script.started())
    banner.handle_event(script.error("The provider is overloaded. Try again in a minute.", "overloaded"))
    banner.handle_event(script.done("error"))
    assert banner.isHidden()
    assert banner.messages() == []


def test_close_button_hides_and_clears(qtbot, banner):
    script = RunScript()
    banner.handle_event(script.started())
    banner.handle_event(script.warning("TOOL_CLAMP", "clamped"))
    close = banner.findChild(QWidget, "bannerClose")
    assert close.accessibleName()
    qtbot.mouseClick(close, Qt.MouseButton.LeftButton)
    assert banner.isHidden()
    assert banner.messages() == []


def test_stays_until_closed(qtbot, banner):
    script = RunScript()
    banner.handle_event(script.started())
    banner.handle_event(script.warning("TOOL_CLAMP", "clamped"))
    banner.handle_event(script.done())
    assert [t for t in banner.findChildren(QTimer) if t.isActive()] == [], "nothing will hide it by itself"
    qtbot.wait(50)
    assert not banner.isHidden() and banner.messages() == ["clamped"]


def test_a_new_run_replaces_the_previous_runs_warnings(qtbot, banner):
    first, second = RunScript("run-1"), RunScript("run-2")
    banner.handle_event(first.started())
    banner.handle_event(first.warning("TOOL_CLAMP", "first run"))
    banner.handle_event(second.started())
    assert banner.isHidden() and banner.messages() == []
    banner.handle_event(second.warning("MAX_ITERATIONS", "second run"))
    assert banner.messages() == ["second run"]


def test_clear_hides_the_warnings_and_forgets_the_run(qtbot, banner):
    run = RunScript("run-7")
    banner.handle_event(run.started())
    banner.handle_event(run.warning("TOOL_CLAMP", "clamped"))
    banner.clear()  # another conversation is shown
    assert banner.isHidden() and banner.messages() == []
    replayed = RunScript("run-8")  # that conversation's stored run, replayed without its run_started
    banner.handle_event(replayed.warning("TOOL_CLAMP", "clamped there too"))
    assert not banner.isHidden() and banner.messages() == ["clamped there too"]
