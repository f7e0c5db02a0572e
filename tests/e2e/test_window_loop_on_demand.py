"""The real app (``app.session.gui.main``) in a child process with no provider: the welcome lists a local server
found on loopback (discovery on a thread) while asyncio is still not imported; the asyncio loop starts when the
first thing needs it (here the add-provider dialog, whose buttons run checks), and the app quits cleanly with it
(issue 17: asyncio, ssl and qasync stay out of the idle window; app/session/qt_asyncio.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from tests.support.cli_process import REPO
from tests.support.loopback import LoopbackServer, Response

CHILD = """
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QPushButton
from orchestration.providers import discovery
discovery.LOCAL_PORTS = {"lmstudio": int(sys.argv[1])}
app = QApplication(sys.argv[:1])
from widgets.main_window import MainWindow
seen = {}
tries = []

def check():
    window = next(w for w in app.topLevelWidgets() if isinstance(w, MainWindow))
    buttons = [b for b in window.welcome.findChildren(QPushButton) if b.text().startswith("Use ")]
    if not buttons and len(tries) < 100:
        tries.append(1)
        QTimer.singleShot(100, check)
        return
    from app.session import qt_asyncio
    seen["buttons"] = [b.text() for b in buttons]
    seen["asyncio_before"] = "asyncio" in sys.modules or "qasync" in sys.modules
    seen["loop_before"] = qt_asyncio.started_loop() is not None
    buttons[0].click()
    seen["loop_after"] = qt_asyncio.started_loop() is not None
    seen["asyncio_after"] = "asyncio" in sys.modules and "qasync" in sys.modules
    dialog = QApplication.activeModalWidget()
    seen["dialog"] = type(dialog).__name__
    if dialog is not None:
        dialog.close()
    QTimer.singleShot(200, app.quit)

QTimer.singleShot(300, check)
QTimer.singleShot(30000, app.quit)
from app.session.gui import main
code = main()
print(json.dumps(seen))
sys.exit(code)
"""


def test_discovery_lists_a_server_without_the_loop_which_starts_at_the_first_need(parley_home) -> None:
    with LoopbackServer() as lmstudio:
        port = lmstudio.port
        lmstudio.always("GET", "/v1/models", Response.json({"data": [{"id": "qwen2.5-7b-instruct"}]}))
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PARLEY_HOME": str(parley_home)}
        done = subprocess.run([sys.executable, "-c", CHILD, str(port)], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "ERROR" not in done.stderr, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["buttons"] == [f"Use LM Studio at http://127.0.0.1:{port}/v1"]
    assert seen["asyncio_before"] is False and seen["loop_before"] is False
    assert seen["loop_after"] is True and seen["asyncio_after"] is True
    assert seen["dialog"] == "AddProviderDialog"


TYPING_CHILD = """
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
from widgets.main_window import MainWindow
seen = {}

def type_a_letter():
    from app.session import qt_asyncio
    window = next(w for w in app.topLevelWidgets() if isinstance(w, MainWindow))
    if not window.composer.isEnabled():  # the session is not attached yet
        QTimer.singleShot(100, type_a_letter)
        return
    seen["loop_before"] = qt_asyncio.started_loop() is not None
    QTest.keyClicks(window.composer.input_widget(), "H")
    seen["loop_after"] = qt_asyncio.started_loop() is not None
    QTimer.singleShot(100, app.quit)

QTimer.singleShot(300, type_a_letter)
QTimer.singleShot(30000, app.quit)
from app.session.gui import main
code = main()
print(json.dumps(seen))
sys.exit(code)
"""


def test_the_first_keystroke_in_the_composer_starts_the_loop_before_the_send(parley_home) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PARLEY_HOME": str(parley_home)}
    done = subprocess.run([sys.executable, "-c", TYPING_CHILD], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=90)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"loop_before": False, "loop_after": True}


SIGNALLED_IDLE_CHILD = """
import json, os, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
from widgets.main_window import MainWindow

def ready():
    window = next(w for w in app.topLevelWidgets() if isinstance(w, MainWindow))
    if not window.composer.isEnabled():
        QTimer.singleShot(50, ready)
        return
    print("RUNNING", flush=True)  # the test sends the signal now

QTimer.singleShot(200, ready)
QTimer.singleShot(30000, lambda: os._exit(3))  # hang guard: the signal did not quit
before = set(os.listdir("/proc/self/fd"))
from app.cli import main
code = main([])
print(json.dumps({"asyncio": "asyncio" in sys.modules,
                  "left_open": sorted(set(os.listdir("/proc/self/fd")) - before)}), flush=True)
sys.exit(code)
"""


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_quits_an_idle_window_whose_loop_never_started(number: signal.Signals, parley_home) -> None:
    """SIGTERM and Ctrl+C reach the quit through Qt while no asyncio loop exists (quit_signals.BeforeLoop): exit 0,
    no traceback, asyncio never imported and the signal's socket pair closed."""
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PARLEY_HOME": str(parley_home)}
    child = subprocess.Popen([sys.executable, "-c", SIGNALLED_IDLE_CHILD], cwd=REPO, env=env, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == "RUNNING\n"
        child.send_signal(number)
        out, stderr = child.communicate(timeout=60)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert child.returncode == 0, stderr
    assert "Traceback" not in stderr, stderr
    assert json.loads(out.strip().splitlines()[-1]) == {"asyncio": False, "left_open": []}
