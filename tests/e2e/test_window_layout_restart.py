"""The real app (``app.session.gui.main``) puts the window back as it was left, across restarts and monitor changes.

Each start is a real process on Qt's offscreen platform given a set of screens (its ``configfile`` option):
two monitors side by side, or only the left one, as after unplugging. The first start changes the layout as a
user would (moves the window to the right monitor, resizes it, drags the columns, switches the right panes to
Search results and opens the run inspector) and quits; the next starts report the layout they opened with.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from app.session.startup_trace import QUIT_ENV
from app.session.window_state import load, state_file
from tests.support.cli_process import REPO

LEFT = {"name": "left", "x": 0, "y": 0, "width": 1920, "height": 1080, "logicalDpi": 96, "logicalBaseDpi": 96,
        "dpr": 1}
RIGHT = {**LEFT, "name": "right", "x": 1920, "width": 2560, "height": 1440}

CHILD = """
import dataclasses, json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
from app.session.gui import main
from widgets.main_window import MainWindow
from widgets.window_layout import capture

def window():
    return next(w for w in app.topLevelWidgets() if isinstance(w, MainWindow))

def move():
    w = window()
    w.resize(1500, 950)
    w.move(2100, 120)
    w.show_pane(w.search_pane)

def columns():  # a moment later, as a user would drag them
    window().splitter.setSizes([300, 760, 420])

def drawer():
    w = window()
    w.show_pane(None)
    w.toggle_inspector()

def report():
    w = window()
    print("LAYOUT " + json.dumps({**dataclasses.asdict(capture(w)), "first_frame": FIRST,
                                   "screen": w.screen().name(), "inspector_shown": w.inspector.isVisible()}),
          flush=True)

FIRST = None
def first_frame():  # what the window holds when it is first shown, before any event is processed
    global FIRST
    w = window()
    FIRST = [w.width(), w.height(), w.x(), w.y()]

QTimer.singleShot(0, first_frame)
if sys.argv[1] == "move":
    QTimer.singleShot(300, move)
    QTimer.singleShot(500, columns)
if sys.argv[1] == "drawer":
    QTimer.singleShot(300, drawer)
QTimer.singleShot(900, report)
sys.exit(main())
"""


def start(home: Path, tmp_path: Path, screens: list[dict], what: str) -> dict:
    config = tmp_path / f"screens-{len(screens)}.json"
    config.write_text(json.dumps({"screens": screens}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}", "PARLEY_HOME": str(home),
           QUIT_ENV: "1.5"}
    done = subprocess.run([sys.executable, "-c", CHILD, what], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("LAYOUT "))
    return json.loads(line.removeprefix("LAYOUT "))


KEPT = ("x", "y", "width", "height", "splitter", "panes_shown", "pane", "inspector_open")


def test_the_window_comes_back_where_it_was_and_on_screen_after_its_monitor_is_gone(parley_home, tmp_path):
    default = start(parley_home, tmp_path, [LEFT, RIGHT], "look")
    assert default["pane"] == "reasoning" and default["x"] < RIGHT["x"]

    moved = start(parley_home, tmp_path, [LEFT, RIGHT], "move")
    assert moved["x"] >= RIGHT["x"] and moved["pane"] == "search"
    assert moved["splitter"][0] == 300 and moved["splitter"][2] == 420  # the chat column takes up the rest
    assert load(state_file(parley_home)) is not None

    again = start(parley_home, tmp_path, [LEFT, RIGHT], "look")
    assert {k: again[k] for k in KEPT} == {k: moved[k] for k in KEPT}
    assert again["screen"] == "right"
    assert again["first_frame"] == [moved["width"], moved["height"], moved["x"], moved["y"]]  # before show

    unplugged = start(parley_home, tmp_path, [LEFT], "look")
    assert unplugged["screen"] == "left"
    assert unplugged["x"] >= 0 and unplugged["x"] + unplugged["width"] <= LEFT["width"]
    assert unplugged["y"] >= 0 and unplugged["y"] + unplugged["height"] <= LEFT["height"]
    assert (unplugged["width"], unplugged["height"]) == (moved["width"], moved["height"])
    assert unplugged["splitter"] == moved["splitter"] and unplugged["pane"] == "search"


def test_an_open_inspector_and_hidden_panes_come_back(parley_home, tmp_path):
    opened = start(parley_home, tmp_path, [LEFT], "drawer")
    assert opened["inspector_open"] and not opened["panes_shown"]
    again = start(parley_home, tmp_path, [LEFT], "look")
    assert again["inspector_shown"]
    assert {k: again[k] for k in KEPT} == {k: opened[k] for k in KEPT}
