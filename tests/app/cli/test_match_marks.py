"""The marks ``parley search`` asks for, and how a marked snippet is shown (app/cli/match_marks.py)."""

from __future__ import annotations

import io

from app.cli.match_marks import BOLD_OFF, BOLD_ON, MatchMarks, wants_bold


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_matches_are_bold_and_the_stored_text_around_and_inside_them_is_escaped():
    marks = MatchMarks.for_terminal(bold=True)
    snippet = f"…a\x1b]0;x\x07 {marks.start}Lis\x1b[31mbon{marks.end} and {marks.start}Porto{marks.end}"
    assert marks.shown(snippet) == (f"…a\\u001b]0;x\\u0007 {BOLD_ON}Lis\\u001b[31mbon{BOLD_OFF} and "
                                    f"{BOLD_ON}Porto{BOLD_OFF}")


def test_without_bold_the_marks_are_dropped():
    marks = MatchMarks.for_terminal(bold=False)
    assert marks.shown(f"{marks.start}Lisbon{marks.end} trip ** stays") == "Lisbon trip ** stays"


def test_each_search_gets_its_own_marks():
    first, second = MatchMarks.for_terminal(bold=True), MatchMarks.for_terminal(bold=True)
    assert first.pair != second.pair and first.start != first.end


def test_bold_only_on_a_terminal_that_has_not_asked_for_plain_text():
    assert wants_bold(Tty(), {"TERM": "xterm"})
    assert wants_bold(Tty(), {"TERM": "xterm", "NO_COLOR": ""})  # empty: not set (no-color.org)
    assert not wants_bold(Tty(), {"TERM": "xterm", "NO_COLOR": "1"})
    assert not wants_bold(Tty(), {"TERM": "dumb"})
    assert not wants_bold(io.StringIO(), {"TERM": "xterm"})
