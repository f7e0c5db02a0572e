"""What the user was writing when they quit the real ``parley`` window (Ctrl+Q) is in the composer when it opens
again, and only once; an empty composer at quit leaves nothing behind."""

from __future__ import annotations

import os
import subprocess
import sys

from app.paths import resolve_paths
from app.session.unsent_text import UNSENT_NAME
from tests.support.cli_process import REPO

CHILD = """
import os
import sys
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from widgets.main_window import MainWindow

app = QApplication(sys.argv[:1])
typed = sys.argv[1]

def step():
    window = next((w for w in app.topLevelWidgets() if isinstance(w, MainWindow)), None)
    if window is None or not window.composer.isEnabled():
        QTimer.singleShot(50, step)
        return
    print("FOUND", repr(window.composer.text()), file=sys.stderr)
    window.composer.input_widget().setPlainText(typed)
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)  # Ctrl+Q, as the user quits
    QTimer.singleShot(5000, window.menus.quit.trigger)  # should the shortcut not reach the offscreen window

QTimer.singleShot(100, step)
QTimer.singleShot(30000, lambda: os._exit(3))  # hang guard: never quit
from app.cli import main
sys.exit(main([]))
"""
DRAFT = "Half a question about otters,\nand a second line"


def run_window(typed: str) -> str:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", CHILD, typed], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    [found] = [line for line in done.stderr.splitlines() if line.startswith("FOUND ")]
    return found.removeprefix("FOUND ")


def test_unsent_text_comes_back_once_after_a_quit(parley_home):
    kept = resolve_paths().data_dir / UNSENT_NAME
    assert run_window(DRAFT) == "''"
    assert kept.read_text(encoding="utf-8") == DRAFT
    assert run_window("") == repr(DRAFT)  # put back; this time the composer is emptied
    assert not kept.exists()
    assert run_window("") == "''"
