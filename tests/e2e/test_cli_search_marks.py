"""``parley search`` as a real process: matches in bold on a terminal (a real pty), plain in a pipe and with
NO_COLOR, ``**…**`` only in ``--json``; stored control characters never reach the terminal."""

from __future__ import annotations

import json
import os
import pty
import subprocess

import pytest

from app.paths import resolve_paths
from app.storage import History
from tests.app.storage.test_history import record_answer
from tests.e2e.test_cli_stdin_prompt import read_until
from tests.support.cli_process import REPO, parley_command, run_parley

BOLD, PLAIN = b"\x1b[1m", b"\x1b[22m"


@pytest.fixture
def saved() -> None:
    with History.open(resolve_paths().database) as history:
        trip = history.create_conversation("Lisbon trip")
        record_answer(history, trip, "Where to eat?", "Try Alfama\x1b[2J for grilled sardines.")


def search_on_a_terminal(*args: str, env: dict[str, str] | None = None) -> tuple[int, bytes]:
    terminal, child_side = pty.openpty()
    process = subprocess.Popen([*parley_command(), "search", *args], stdin=subprocess.DEVNULL, stdout=child_side,
                               stderr=subprocess.DEVNULL, cwd=REPO, env={**os.environ, **(env or {})},
                               start_new_session=True)
    os.close(child_side)
    try:
        code = process.wait(timeout=60)
        return code, read_until(terminal, b"\0", 2)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(terminal)


def test_a_terminal_shows_matches_in_bold_and_stored_escapes_inert(saved):
    code, shown = search_on_a_terminal("alfama", env={"NO_COLOR": "", "TERM": "xterm"})
    assert code == 0, shown
    assert BOLD + b"Alfama" + PLAIN + b"\\u001b[2J for grilled" in shown, shown
    assert b"**" not in shown
    assert shown.count(b"\x1b") == 2, shown  # Parley's bold on and off, nothing from the history


@pytest.mark.parametrize("env", [{"NO_COLOR": "1", "TERM": "xterm"}, {"TERM": "dumb"}], ids=["NO_COLOR", "dumb"])
def test_a_terminal_that_asks_for_plain_text_gets_it(saved, env):
    code, shown = search_on_a_terminal("alfama", env={"NO_COLOR": "", **env})
    assert code == 0, shown
    assert b"Try Alfama\\u001b[2J for grilled" in shown and b"**" not in shown and b"\x1b" not in shown, shown


def test_a_pipe_gets_plain_text_and_json_keeps_its_marks(saved):
    piped = run_parley("search", "alfama", env={"TERM": "xterm", "NO_COLOR": ""})
    assert piped.returncode == 0, piped.stderr
    assert "    Try Alfama\\u001b[2J for grilled sardines." in piped.stdout.splitlines()
    assert "**" not in piped.stdout and "\x1b" not in piped.stdout
    hits = json.loads(run_parley("search", "alfama", "--json").stdout)
    assert hits[0]["snippet"] == "Try **Alfama**\x1b[2J for grilled sardines."
