"""Regression guard: PySide6 6.12.0 on CPython 3.11 aborts after ~5,000 Qt calls that return nothing.

The dependency pin keeps that build out; this test proves the installed binding survives 20,000 such calls in
one process (in a child process, so a crash fails this test instead of killing the whole run).
"""

from __future__ import annotations

import os
import subprocess
import sys

PROGRAM = r"""
import sys
from PySide6.QtWidgets import QApplication, QLabel
from PySide6.QtCore import QTimer
app = QApplication([])
label = QLabel()
timer = QTimer()
before = sys.getrefcount(None)
for i in range(10_000):
    label.setText(str(i))
    timer.setInterval(i % 100 + 1)
after = sys.getrefcount(None)
print(before - after)
"""


def test_twenty_thousand_void_qt_calls_survive() -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, f"the Qt binding crashed: {proc.stderr[-2000:]}"
    lost = int(proc.stdout.strip().splitlines()[-1])
    # On an affected build each void call drops one reference to None: 20,000 lost here.
    assert lost < 100, f"None lost {lost} references over 20,000 void Qt calls"


def test_installed_pyside_is_not_the_broken_build_on_311() -> None:
    import PySide6

    if sys.version_info < (3, 12):
        assert tuple(int(p) for p in PySide6.__version__.split(".")[:2]) < (6, 12), PySide6.__version__
