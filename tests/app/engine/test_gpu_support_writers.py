"""Two processes saving gpu_support.json at once (the metadata child of two sessions, or a session and
``parley local``): each writer has its own temporary file, so neither loses its write to the other's rename
(which logged "cannot save" and made the next session check again) and the file is always one whole answer."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from app.engine import gpu_support

REPO = Path(__file__).resolve().parents[3]
WRITES = 300  # per writer: enough that the two interleave many times

WRITER = f"""
import logging, sys, time
from pathlib import Path
from app.engine import gpu_support
logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
data, key, go = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
while not go.exists():
    time.sleep(0.001)
for i in range({WRITES}):
    gpu_support.remember(data, key, i % 2 == 0)
"""


def test_two_writers_at_once_both_save_and_leave_one_whole_answer(tmp_path: Path) -> None:
    data = tmp_path / "data"
    go = tmp_path / "go"
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(data), key, str(go)], cwd=REPO,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for key in ("build-a", "build-b")]
    time.sleep(0.5)  # both started and waiting
    go.touch()
    results = [writer.communicate(timeout=120) for writer in writers]
    for writer, (_out, err) in zip(writers, results, strict=True):
        assert writer.returncode == 0, err
        assert "cannot save" not in err, err
    stored = json.loads((data / gpu_support.CACHE_NAME).read_text(encoding="utf-8"))
    assert stored["key"] in {"build-a", "build-b"}
    assert stored["offload"] is False  # each writer's last write (i = WRITES - 1, odd)
    assert sorted(p.name for p in data.iterdir()) == [gpu_support.CACHE_NAME]  # no temporary file left behind


def test_an_unwritable_folder_is_logged_and_leaves_nothing(tmp_path: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    data = tmp_path / "data"
    data.mkdir()
    (data / gpu_support.CACHE_NAME).mkdir()  # the name is taken by a folder: the rename fails
    gpu_support.remember(data, "build-a", True)
    assert "cannot save" in caplog.text
    assert sorted(p.name for p in data.iterdir()) == [gpu_support.CACHE_NAME]
    assert gpu_support.read_cached(data, "build-a") is None
