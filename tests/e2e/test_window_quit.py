"""The real app (``app.session.gui.main``) in a child process, quit soon after start and after the MCP server is up:
it exits with 0 and reports no error or traceback (background work is cancelled before the loop closes)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.cli_process import REPO

CHILD = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from app.paths import resolve_paths
from app.settings import Settings, save_settings
from tools.mcp import McpServerSettings

save_settings(Settings(mcp_servers=[McpServerSettings(name="time", command=sys.executable,
                                                      args=["-m", "mcp_server_time"])]), resolve_paths().settings)
app = QApplication(sys.argv[:1])
QTimer.singleShot(int(sys.argv[1]), app.quit)
from app.session.gui import main
sys.exit(main())
"""


@pytest.mark.parametrize("quit_after_ms", [50, 3000])
def test_quit_exits_cleanly(quit_after_ms: int, parley_home) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PARLEY_HOME": str(parley_home)}
    done = subprocess.run([sys.executable, "-c", CHILD, str(quit_after_ms)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "ERROR" not in done.stderr, done.stderr


MENU_CHILD = """
import os
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from widgets.main_window import MainWindow

app = QApplication(sys.argv[:1])

def quit_from_the_menu():
    window = next(w for w in app.topLevelWidgets() if isinstance(w, MainWindow))
    window.menus.quit.trigger()

QTimer.singleShot(1500, quit_from_the_menu)
QTimer.singleShot(15000, lambda: os._exit(3))  # the menu did not quit
from app.session.gui import main
sys.exit(main())
"""


def test_file_quit_ends_the_app_cleanly(parley_home) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PARLEY_HOME": str(parley_home)}
    done = subprocess.run([sys.executable, "-c", MENU_CHILD], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
