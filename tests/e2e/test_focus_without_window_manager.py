"""On a real X server with no window manager, Parley's window has the keyboard at start and after a dialog
(user pass 4, item 4): before, Ctrl+N, Ctrl+, and Ctrl+O went nowhere until the window was clicked, since
nothing hands an X client the focus there and Qt leaves that to the window manager.

A child process runs the real main window on its own Xvfb (xcb platform) and reports which window is active
at start and after a modal dialog closed. Skipped where Xvfb is not installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

GUARD_S = 60  # hang guard, not a speed assertion
CHILD = """
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialog
app = QApplication(sys.argv)
from widgets.main_window import MainWindow
window = MainWindow()
window.show()
seen = {}

def wait(then, turns=40):
    QTimer.singleShot(50, lambda: then() if turns == 0 or app.activeWindow() is window else wait(then, turns - 1))

def at_start():
    seen["start"] = app.activeWindow() is window
    dialog = QDialog(window)
    QTimer.singleShot(300, dialog.accept)
    dialog.exec()
    wait(after_dialog)

def after_dialog():
    seen["after_dialog"] = app.activeWindow() is window
    print(json.dumps(seen), flush=True)
    app.quit()

wait(at_start)
app.exec()
"""


@pytest.fixture
def bare_display(tmp_path: Path):
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed")
    for number in range(140, 200):
        if not Path(f"/tmp/.X11-unix/X{number}").exists() and not Path(f"/tmp/.X{number}-lock").exists():
            break
    server = subprocess.Popen(["Xvfb", f":{number}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + GUARD_S
    while not Path(f"/tmp/.X11-unix/X{number}").exists():
        assert server.poll() is None and time.monotonic() < deadline, "Xvfb did not start"
        time.sleep(0.05)
    yield f":{number}"
    server.terminate()
    server.wait(GUARD_S)


def test_the_window_is_active_at_start_and_after_a_dialog_without_a_window_manager(bare_display, parley_home):
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "DISPLAY": bare_display, "QT_QPA_PLATFORM": "xcb", "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, capture_output=True, text=True, timeout=GUARD_S,
                          check=False)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen == {"start": True, "after_dialog": True}
