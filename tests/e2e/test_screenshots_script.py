"""``make screenshots`` stays reproducible: the script runs from a clean state in a child process (offscreen here)
and writes every picture, after checking the window shows each conversation once, no warning and no error."""

from __future__ import annotations

import os
import subprocess
import sys

from PySide6.QtGui import QImage

from tests.support.cli_process import REPO

PICTURES = ["window-light-search", "window-light-reasoning", "window-dark-search", "window-dark-reasoning",
            "conversation-search-light", "conversation-search-dark", "inspector-light", "inspector-dark",
            "inspector-raw-light", "preferences-light", "preferences-mcp-light", "preferences-workspace-light",
            "preferences-local-models-light",
            "message-actions-light", "message-actions-dark", "chat-settings-light", "tool-picker-light",
            "window-light-attachments", "window-dark-attachments"]


def test_the_screenshot_script_writes_every_picture_from_a_clean_state(tmp_path, qapp):
    out = tmp_path / "shots"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "scripts/screenshots.py", "--out", str(out)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert sorted(p.stem for p in out.glob("*.png")) == sorted(PICTURES)
    for name in PICTURES:
        image = QImage(str(out / f"{name}.png"))
        assert image.width() >= 800 and image.height() >= 500, name
    assert not (tmp_path / "parley-screenshots").exists()  # its data folders are removed afterwards
