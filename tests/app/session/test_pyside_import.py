"""PySide6's ``__feature__`` import layer taken out of the window's process (app/session/pyside_import.py): modules
imported afterwards are not read as source, and PySide6 still imports. Each case runs in a fresh interpreter,
since the import statement is the whole process's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]

PROBE = r"""
import builtins, json, linecache, sys
from pathlib import Path
folder = Path(sys.argv[1])
for name in ("before_drop", "after_drop"):
    (folder / f"{name}.py").write_text(f"NAME = {name!r}\n")
sys.path.insert(0, str(folder))
import PySide6.QtCore
import before_drop
from app.session.pyside_import import drop_feature_import
dropped = drop_feature_import()
again = drop_feature_import()
import after_drop
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication([])
label = QLabel("still a Qt widget")
read = {name: any(path.endswith(f"{name}.py") for path in linecache.cache) for name in ("before_drop", "after_drop")}
print(json.dumps({"dropped": dropped, "again": again, "read": read, "label": label.text(),
                  "import": builtins.__import__.__name__}))
"""


def test_modules_imported_after_the_drop_are_not_read_as_source_and_qt_still_imports(tmp_path: Path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    # PySide6's layer read the module imported while it was in place: what the drop is for
    assert seen["read"] == {"before_drop": True, "after_drop": False}
    assert seen["dropped"] is True and seen["again"] is False
    assert seen["import"] != "__feature_import__"
    assert seen["label"] == "still a Qt widget"
