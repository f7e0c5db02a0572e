"""The usage screenshots (scripts/usage_screenshots.py, part of ``make screenshots``) are made from a clean state
in a child process (offscreen here): every picture is written and its data folder removed afterwards."""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtGui import QImage

from tests.support.cli_process import REPO

PICTURES = ["usage-answer-cost-light", "usage-inspector-cost-light", "usage-chart-light", "usage-chart-dark"]


def test_the_usage_screenshot_script_writes_every_picture(tmp_path, qapp):
    out = tmp_path / "shots"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "scripts/usage_screenshots.py", "--out", str(out)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert sorted(p.stem for p in out.glob("*.png")) == sorted(PICTURES)
    for name in PICTURES:
        image = QImage(str(out / f"{name}.png"))
        assert image.width() >= 800 and image.height() >= 500, name
    assert not (tmp_path / "parley-usage-screenshots").exists()
