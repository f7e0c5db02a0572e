"""Process start to first paint of the main window, with a history database of 1,000 conversations.

A fresh Python process builds the real window (settings, database, conversation list) and prints a line when
its first paint has finished; the clock runs in the parent from just before the process starts to that line.
The baseline, measured in the same run, is a process that shows a bare QMainWindow holding a QTextBrowser.

    python -m bench.cold_start [--conversations N] [--repeat R]

Prints one JSON object (medians over R starts). Runs offscreen unless QT_QPA_PLATFORM is set.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

PARLEY = r"""
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.session.gui import attach_session
from widgets.main_window import MainWindow
from widgets.theme import apply_theme
window = MainWindow()
apply_theme(app, "light")
def ready():
    session = attach_session(window, discover=False)
    assert len(window.conversations.ids_in_order()) == session.history.list_conversations().__len__()
    print("ready", flush=True)
    app.quit()
class Watch(QObject):
    done = False
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not self.done:
            self.done = True
            QTimer.singleShot(0, lambda: (print("painted", flush=True), QTimer.singleShot(0, ready)))
        return False
watch = Watch()
window.installEventFilter(watch)
window.show()
app.exec()
"""

BASELINE = r"""
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow, QTextBrowser
app = QApplication([])
window = QMainWindow()
window.setCentralWidget(QTextBrowser())
class Watch(QObject):
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, lambda: (print("painted", flush=True), app.quit()))
        return False
watch = Watch()
window.installEventFilter(watch)
window.resize(1280, 820)
window.show()
app.exec()
"""


def fill_history(home: Path, conversations: int) -> None:
    os.environ["PARLEY_HOME"] = str(home)
    from app.paths import resolve_paths
    from app.storage import History

    history = History.open(resolve_paths().database)
    for i in range(conversations):
        conversation = history.create_conversation(f"Conversation {i} about topic {i % 37}")
        history.add_message(conversation, "user", f"Question {i}: what about topic {i % 37}?")
        history.add_message(conversation, "assistant", f"An answer about topic {i % 37}. " * 20)
    history.close()


def start_to_paint(program: str, env: dict[str, str]) -> tuple[float, float | None]:
    """Milliseconds to the first paint, and to "ready" (history listed, Send usable) when the program says."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", program], cwd=REPO, env=env, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    painted = (time.perf_counter() - start) * 1000
    ready = None
    if "painted" in line:
        following = proc.stdout.readline()
        if "ready" in following:
            ready = (time.perf_counter() - start) * 1000
    proc.wait(timeout=60)
    if "painted" not in line:
        raise RuntimeError(f"the window did not report a paint (exit {proc.returncode})")
    return painted, ready


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--conversations", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="parley-cold-"))
    fill_history(home, args.conversations)
    env = {**os.environ, "PARLEY_HOME": str(home), "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen"),
           "PYTHONPATH": str(REPO)}
    start_to_paint(BASELINE, env)  # warm the OS file cache for both
    parley = [start_to_paint(PARLEY, env) for _ in range(args.repeat)]
    baseline = [start_to_paint(BASELINE, env)[0] for _ in range(args.repeat)]
    first_paint = statistics.median(p for p, _ in parley)
    print(json.dumps({
        "benchmark": "cold_start", "platform": env["QT_QPA_PLATFORM"], "conversations": args.conversations,
        "parley_first_paint_ms": round(first_paint, 1),
        "parley_ready_ms": round(statistics.median(r for _, r in parley if r is not None), 1),
        "bare_qt_window_first_paint_ms": round(statistics.median(baseline), 1),
        "first_paint_ratio_to_bare_window": round(first_paint / statistics.median(baseline), 2),
    }))


if __name__ == "__main__":
    main()
