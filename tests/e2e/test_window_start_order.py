"""The real window (``app.session.gui.main``) paints its first frame before it opens the session (settings, database,
keyring, conversation list), and is ready (composer enabled) after that: the order the start-up timing hook
(``PARLEY_STARTUP_TRACE``, app/session/startup_trace.py) records, which bench/startup.py times from outside."""

from __future__ import annotations

import os
import subprocess
import sys

from app.session.startup_trace import QUIT_ENV, TRACE_ENV, read_marks
from tests.support.cli_process import REPO

CHILD = """
import sys
from app.session.gui import main
sys.exit(main())
"""


def test_the_first_frame_is_painted_before_the_session_opens(parley_home, tmp_path) -> None:
    trace = tmp_path / "trace.txt"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PARLEY_HOME": str(parley_home), TRACE_ENV: str(trace),
           QUIT_ENV: "0"}
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    marks = read_marks(str(trace))
    assert set(marks) == {"painted", "ready"}, trace.read_text() if trace.exists() else "no trace written"
    assert marks["painted"] <= marks["ready"]
