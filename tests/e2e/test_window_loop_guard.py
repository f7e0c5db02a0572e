"""The real app (``app.session.gui.main``) in a child process: a coroutine scheduled from a Qt slot without
``qt_asyncio.ensure_running()`` fails loudly with ``LoopNotStartedError`` naming it, instead of waiting forever on a
loop Python 3.11 would make and nothing runs (app/session/loop_guard.py). asyncio is still not imported at idle; after
``ensure_running`` the same scheduling works and the coroutine runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.support.cli_process import REPO

CHILD = """
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
from widgets.main_window import MainWindow
seen = {}

def forgetful_slot():
    window = next(w for w in app.topLevelWidgets() if isinstance(w, MainWindow))
    if not window.composer.isEnabled():  # the session is not attached yet
        QTimer.singleShot(100, forgetful_slot)
        return
    seen["asyncio_at_idle"] = "asyncio" in sys.modules
    import asyncio

    async def work():
        seen["ran"] = True

    coroutine = work()
    try:
        asyncio.ensure_future(coroutine)
    except Exception as error:
        coroutine.close()
        seen["error"] = [type(error).__name__, str(error)]
    from app.session import qt_asyncio
    seen["loop_started_by_it"] = qt_asyncio.started_loop() is not None
    qt_asyncio.ensure_running()
    asyncio.ensure_future(work())
    QTimer.singleShot(300, app.quit)

QTimer.singleShot(300, forgetful_slot)
QTimer.singleShot(30000, app.quit)
from app.session.gui import main
code = main()
print(json.dumps(seen))
sys.exit(code)
"""


def test_scheduling_before_ensure_running_fails_loudly_and_after_it_runs(parley_home) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PARLEY_HOME": str(parley_home)}
    done = subprocess.run([sys.executable, "-c", CHILD], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=90)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["asyncio_at_idle"] is False
    name, message = seen.get("error", ["no error: the coroutine was left on a loop nothing runs", ""])
    assert name == "LoopNotStartedError"
    assert "ensure_running()" in message
    assert seen["loop_started_by_it"] is False
    assert seen["ran"] is True
