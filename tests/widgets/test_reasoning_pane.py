"""The reasoning pane fed by scripted run event streams."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QTextBrowser, QToolButton

from tests.support.run_script import RunScript
from widgets.reasoning_pane import IDLE_TEXT, NONE_SENT_TEXT, WAITING_TEXT, ReasoningPane


@pytest.fixture
def pane(qtbot) -> ReasoningPane:
    widget = ReasoningPane()
    qtbot.addWidget(widget)
    widget.resize(360, 500)
    widget.show()
    return widget


def feed(pane: ReasoningPane, *events) -> None:
    for event in events:
        if isinstance(event, list):
            feed(pane, *event)
        else:
            pane.handle_event(event)


def wait_shown(qtbot, pane: ReasoningPane, phases: int) -> None:
    qtbot.waitUntil(lambda: pane.phase_count() == phases, timeout=2000)


def test_expected_reasoning_shows_a_waiting_placeholder_at_once(qtbot, pane):
    pane.expect_reasoning(True)
    script = RunScript()
    with qtbot.waitSignal(pane.visibility_wanted, timeout=1000) as wanted:
        feed(pane, script.started())
    assert wanted.args == [True]
    assert pane.status_text() == WAITING_TEXT
    assert pane.is_waiting()
    assert pane.phase_count() == 0


def test_unexpected_run_shows_no_spinner_until_reasoning_arrives(qtbot, pane):
    script = RunScript()
    feed(pane, script.started())
    assert not pane.is_waiting()
    assert pane.status_text() == IDLE_TEXT
    feed(pane, script.reasoning("Thinking"))
    assert pane.is_waiting()
    wait_shown(qtbot, pane, 1)
    assert pane.status_text() == ""


def test_phases_before_and_after_tools_get_separate_blocks(qtbot, pane):
    pane.expect_reasoning(True)
    script = RunScript()
    feed(pane, script.started(), script.reasoning("First I should "), script.reasoning("search the web."))
    feed(pane, script.search("parley app", []))
    script.next_call()
    feed(pane, script.reasoning("The results say "), script.reasoning("enough."))
    wait_shown(qtbot, pane, 2)
    assert pane.phase_text(0) == "First I should search the web."
    assert pane.phase_text(1) == "The results say enough."
    assert pane.phase_title(0) == "Phase 1"
    assert pane.phase_title(1) == "Phase 2 · after web_search"
    assert pane.word_count() == 10


def test_multi_line_reasoning_keeps_its_lines(qtbot, pane):
    script = RunScript()
    feed(pane, script.started(), script.reasoning("line one\n"), script.reasoning("line two\n\nline four"))
    wait_shown(qtbot, pane, 1)
    assert pane.phase_text(0) == "line one\nline two\n\nline four"


def test_deltas_are_coalesced_into_one_update_per_frame(qtbot, pane):
    script = RunScript()
    feed(pane, script.started())
    before = pane.updates_applied()
    words = [f"w{n} " for n in range(300)]
    feed(pane, *(script.reasoning(word) for word in words))
    assert pane.phase_count() == 0, "nothing is drawn before the frame timer fires"
    wait_shown(qtbot, pane, 1)
    assert pane.updates_applied() - before == 1
    assert pane.phase_text(0) == "".join(words)
    assert pane.word_count() == 300


def test_answer_collapses_the_pane_to_a_summary_and_the_toggle_reopens_it(qtbot, pane):
    script = RunScript()
    feed(pane, script.started(), script.reasoning("one two "), script.reasoning("three"))
    feed(pane, script.search("q", []))
    script.next_call()
    feed(pane, script.reasoning("four five"))
    assert not pane.is_collapsed()
    feed(pane, script.content("The answer"))
    assert pane.is_collapsed()
    assert pane.phase_count() == 2, "collapsing shows every pending delta first"
    assert pane.summary_text() == "Reasoned in 2 phases · 5 words"

    toggle = pane.findChild(QToolButton, "paneToggle")
    assert toggle.accessibleName()
    qtbot.mouseClick(toggle, Qt.MouseButton.LeftButton)
    assert not pane.is_collapsed()
    assert pane.findChild(QTextBrowser, "reasoningView").isVisible()
    pane.toggle_collapsed()
    assert pane.is_collapsed()
    assert not pane.findChild(QTextBrowser, "reasoningView").isVisible()


def test_words_split_across_deltas_are_counted_once(qtbot, pane):
    script = RunScript()
    feed(pane, script.started(), script.reasoning("hel"), script.reasoning("lo wor"), script.reasoning("ld "),
         script.reasoning(" again"))
    assert pane.word_count() == 3
    feed(pane, script.content("x"))
    assert pane.summary_text() == "Reasoned in 1 phase · 3 words"


def test_done_stops_the_spinner_and_shows_what_arrived(qtbot, pane):
    pane.expect_reasoning(True)
    script = RunScript()
    feed(pane, script.started(), script.reasoning("quick thought"))
    assert pane.is_waiting()
    feed(pane, script.done())
    assert not pane.is_waiting()
    assert pane.phase_count() == 1, "done shows pending deltas without waiting for a frame"
    assert pane.phase_text(0) == "quick thought"
    assert pane.summary_text() == "Reasoned in 1 phase · 2 words"


def test_done_without_reasoning_says_none_was_sent(qtbot, pane):
    pane.expect_reasoning(True)
    script = RunScript()
    feed(pane, script.started(), script.content("Just an answer"), script.done())
    assert not pane.is_waiting()
    assert pane.status_text() == NONE_SENT_TEXT
    assert pane.phase_count() == 0


def test_done_without_reasoning_when_none_was_expected_leaves_the_idle_text(qtbot, pane):
    script = RunScript()
    feed(pane, script.started(), script.content("Just an answer"), script.done())
    assert pane.status_text() == IDLE_TEXT
    assert not pane.is_waiting()


def test_error_run_stops_the_spinner_on_done(qtbot, pane):
    pane.expect_reasoning(True)
    script = RunScript()
    feed(pane, script.started(), script.error("The server failed"), script.done("error"))
    assert not pane.is_waiting()


def test_pane_reopens_for_reasoning_after_a_preamble_and_collapses_again(qtbot, pane):
    script = RunScript()
    feed(pane, script.started(), script.reasoning("plan"), script.content("Let me look that up."))
    assert pane.is_collapsed()
    feed(pane, script.search("q", []))
    script.next_call()
    feed(pane, script.reasoning("now I know"))
    assert not pane.is_collapsed()
    wait_shown(qtbot, pane, 2)
    feed(pane, script.content("Here it is."))
    assert pane.is_collapsed()


def test_the_users_toggle_wins_over_automatic_collapse(qtbot, pane):
    script = RunScript()
    feed(pane, script.started(), script.reasoning("plan"), script.content("Preamble."))
    pane.toggle_collapsed()  # the user reopens it
    feed(pane, script.search("q", []))
    script.next_call()
    feed(pane, script.reasoning("more"), script.content("Answer"))
    assert not pane.is_collapsed()


def test_a_new_run_clears_the_previous_one(qtbot, pane):
    first = RunScript("run-a")
    feed(pane, first.started(), first.reasoning("old thoughts"), first.content("old"), first.done())
    assert pane.phase_count() == 1
    second = RunScript("run-b")
    feed(pane, second.started())
    assert pane.phase_count() == 0
    assert not pane.is_collapsed()
    assert pane.word_count() == 0
    feed(pane, second.reasoning("new"))
    wait_shown(qtbot, pane, 1)
    assert pane.phase_text(0) == "new"


def test_late_events_of_an_earlier_run_are_ignored(qtbot, pane):
    first = RunScript("run-a")
    second = RunScript("run-b")
    feed(pane, first.started(), second.started(), first.reasoning("stale"), second.reasoning("fresh"))
    wait_shown(qtbot, pane, 1)
    assert pane.phase_text(0) == "fresh"


def test_theme_switch_recolours_the_phase_blocks(qtbot, pane):
    script = RunScript()
    feed(pane, script.started(), script.reasoning("text"), script.done())
    palette = pane.palette()
    palette.setColor(QPalette.ColorRole.AlternateBase, QColor("#123456"))
    pane.setPalette(palette)
    [frame] = pane.findChild(QTextBrowser, "reasoningView").document().rootFrame().childFrames()
    assert frame.frameFormat().background().color() == QColor("#123456")
    assert pane.phase_text(0) == "text"


def test_terminal_escapes_in_reasoning_show_in_caret_notation(qtbot, pane):
    script = RunScript()
    feed(pane, script.started(), script.reasoning("think \x1b[31mred\x1b[0m\x07"))
    wait_shown(qtbot, pane, 1)
    assert pane.phase_text(0) == "think ^[[31mred^[[0m^G"
