"""``parley history``, ``export`` and ``search`` as a real process over a history whose stored text is not UTF-8
(a damaged or hand-edited database): U+FFFD for each bad byte, the rest printed, no traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from app.paths import resolve_paths
from app.storage import History
from tests.app.storage.test_damaged_text import damaged_conversation

REPO = Path(__file__).resolve().parents[3]
GUARD_S = 60  # hang guard, not a speed assertion


def parley(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PARLEY_HOME": str(home), "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([sys.executable, "-m", "app.cli.entry", *argv], cwd=REPO, env=env, capture_output=True,
                          text=True, encoding="utf-8", timeout=GUARD_S)


def test_a_damaged_conversation_is_listed_shown_and_exported(parley_home):
    with History.open(resolve_paths().database) as history:
        cid = damaged_conversation(history)
    listed = parley(parley_home, "history", "list")
    assert (listed.returncode, listed.stderr) == (0, "")
    assert "Notes \ufffd" in listed.stdout
    shown = parley(parley_home, "history", "show", str(cid))
    assert (shown.returncode, shown.stderr) == (0, "")
    assert "user: caf\ufffd and \ufffd\ufffd end" in shown.stdout and "Twelve eggs." in shown.stdout
    data = json.loads(parley(parley_home, "history", "show", str(cid), "--json").stdout)
    assert data["messages"][0]["content"] == "caf\ufffd and \ufffd\ufffd end"
    exported = parley(parley_home, "export", str(cid), "--format", "json")
    assert (exported.returncode, exported.stderr) == (0, "")
    assert json.loads(exported.stdout)["conversation"]["title"] == "Notes \ufffd"
    found = parley(parley_home, "search", "eggs")
    assert (found.returncode, found.stderr) == (0, "") and "Notes \ufffd" in found.stdout
