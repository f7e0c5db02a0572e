"""``parley tools list`` on a fresh data folder: the workspace tools' descriptions said "the user's workspace ()"
with nothing between the brackets. A real process."""

from __future__ import annotations

from tests.support.cli_process import run_parley


def test_workspace_tools_without_a_folder_say_so_instead_of_empty_brackets():
    listed = run_parley("tools", "list")
    assert listed.returncode == 0, listed.stderr
    assert "()" not in listed.stdout, listed.stdout
    assert "user's workspace (no folder chosen)" in listed.stdout
    assert "read-write folder of the user's workspace (no read-write folder chosen)" in listed.stdout
