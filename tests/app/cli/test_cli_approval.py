"""``parley chat`` approval: settings policies, ``--approve all|none``, and the terminal question per batch
(the terminal is the boundary faked here: a list of typed lines and a text buffer)."""

from __future__ import annotations

import asyncio
import io

from app.cli.cli_approval import cli_approver
from app.cli.terminal_text import UNSAFE_CHARACTERS
from app.settings import Settings
from orchestration.tool_turn import ApprovalRequest

BATCH = [ApprovalRequest("c1", "read_file", {"path": "a.txt"}), ApprovalRequest("c2", "list_directory", {"path": "."})]


def decide(settings: Settings, approve: str | None, lines: list[str] | None = None, *, interactive: bool = True):
    typed = iter(lines or [])
    remembered: list[list[str]] = []
    out = io.StringIO()
    approver = cli_approver(settings, approve, interactive=interactive, remember=remembered.append,
                            read_line=lambda: next(typed, ""), out=out)
    decisions = asyncio.run(approver(BATCH))
    return decisions, remembered, out.getvalue()


def test_approve_all_and_none_never_ask():
    assert decide(Settings(), "all")[0] == {"c1": "allow", "c2": "allow"}
    decisions, _, shown = decide(Settings(), "none")
    assert decisions == {"c1": "deny", "c2": "deny"} and shown == ""


def test_settings_policy_wins_over_the_flag():
    settings = Settings()
    settings.tools.approval["read_file"] = "deny"
    settings.tools.approval["list_directory"] = "allow"
    assert decide(settings, "all")[0] == {"c1": "deny", "c2": "allow"}


def test_not_a_terminal_denies():
    decisions, _, shown = decide(Settings(), None, ["y\n"], interactive=False)
    assert decisions == {"c1": "deny", "c2": "deny"} and shown == ""


def test_terminal_yes_shows_full_arguments():
    decisions, remembered, shown = decide(Settings(), None, ["y\n"])
    assert decisions == {"c1": "allow", "c2": "allow"} and remembered == []
    assert '"path": "a.txt"' in shown and "list_directory" in shown and "[e]ach" in shown


def test_terminal_always_remembers_the_tools():
    decisions, remembered, _ = decide(Settings(), None, ["a\n"])
    assert decisions == {"c1": "allow", "c2": "allow"}
    assert remembered == [["list_directory", "read_file"]]


def test_terminal_each_one():
    decisions, remembered, _ = decide(Settings(), None, ["e\n", "n\n", "a\n"])
    assert decisions == {"c1": "deny", "c2": "allow"} and remembered == [["list_directory"]]


def test_end_of_input_denies():
    assert decide(Settings(), None, [])[0] == {"c1": "deny", "c2": "deny"}


def test_the_question_shows_control_sequences_in_arguments_as_text():
    hostile = [ApprovalRequest("c1", "read_file\x1b]0;title\x07", {"path": "\x1b[2J\u202ea.txt\x9b"})]
    out = io.StringIO()
    approver = cli_approver(Settings(), None, interactive=True, remember=lambda names: None,
                            read_line=lambda: "n\n", out=out)
    assert asyncio.run(approver(hostile)) == {"c1": "deny"}
    shown = out.getvalue()
    assert not UNSAFE_CHARACTERS.search(shown)
    assert "read_file\\u001b]0;title\\u0007" in shown and "\\u001b[2J\\u202ea.txt\\u009b" in shown


def test_a_tools_preview_is_shown_instead_of_its_arguments():
    request = ApprovalRequest("c1", "edit_file", {"path": "a.py", "old_text": "x", "new_text": "y"},
                              preview="Edit a.py: 2 B becomes 2 B (1 line) in /w\n-x\n+y")
    out = io.StringIO()
    approver = cli_approver(Settings(), None, interactive=True, remember=lambda names: None,
                            read_line=lambda: "n\n", out=out)
    assert asyncio.run(approver([request])) == {"c1": "deny"}
    shown = out.getvalue()
    assert "    Edit a.py: 2 B becomes 2 B" in shown and "    -x\n    +y" in shown and "old_text" not in shown


def test_a_typo_asks_again_instead_of_deciding():
    # Before, only the first letter counted: "x" denied, "ack" allowed always, a bare Enter denied.
    decisions, remembered, shown = decide(Settings(), None, ["x\n", "ack\n", "\n", "yes\n"])
    assert decisions == {"c1": "allow", "c2": "allow"} and remembered == []
    assert shown.count("Allow?") == 4 and shown.count("Please answer y, n, a or e.") == 3


def test_a_typo_in_each_one_asks_that_call_again():
    decisions, remembered, shown = decide(Settings(), None, ["each\n", "yy\n", "no\n", "always\n"])
    assert decisions == {"c1": "deny", "c2": "allow"} and remembered == [["list_directory"]]
    assert shown.count("1. read_file: [y]es") == 2 and "Please answer y, n or a." in shown


def test_end_of_input_after_a_typo_denies():
    decisions, _, _ = decide(Settings(), None, ["x\n"])
    assert decisions == {"c1": "deny", "c2": "deny"}
