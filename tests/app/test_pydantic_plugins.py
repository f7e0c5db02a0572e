"""A CLI command builds its pydantic models without searching every installed package for pydantic plugins
(app/pydantic_plugins.py): the search is an entry-point scan at each start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# importlib.metadata.entry_points wrapped before pydantic binds it, recording the groups asked for.
SCRIPT = r"""
import contextlib, io, json, sys
import importlib.metadata as metadata
groups = []
real = metadata.entry_points
def recording(**params):
    groups.append(params.get("group"))
    return real(**params)
metadata.entry_points = recording
from app.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
modeled = "app.settings.model" in sys.modules
import pydantic
class Model(pydantic.BaseModel):
    x: int = 1
print(json.dumps({"code": code, "groups": groups, "valid": Model(x=2).x, "modeled": modeled}))
"""


def test_tools_list_builds_its_models_without_a_pydantic_plugin_search(tmp_path: Path) -> None:
    # A workspace folder: settings the plain read leaves to the model (app/cli/listing_settings.py), so the
    # listing validates them and builds the tools with pydantic.
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.json").write_text(json.dumps({"workspace_folders": [str(tmp_path)]}), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO), "PARLEY_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", SCRIPT, "tools", "list"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["code"] == 0
    assert seen["modeled"] is True  # the settings went through the model
    assert "pydantic" not in seen["groups"]
    assert seen["valid"] == 2  # models still build and validate


# The plugin search skipped in a process that has not imported importlib.metadata yet: what it imported, and
# whether importlib.metadata, imported afterwards, and the loader's entry_points are the real ones.
AFTER_SKIP = r"""
import json, sys
from app.pydantic_plugins import skip_plugin_discovery
skip_plugin_discovery()
imported = "importlib.metadata" in sys.modules
import importlib.metadata
from pydantic.plugin import _loader
groups = [ep.name for ep in _loader.entry_points(group="console_scripts")]
print(json.dumps({"imported": imported, "real": hasattr(importlib.metadata, "distribution"),
                  "plugins": list(_loader.get_plugins()), "console_scripts": len(groups)}))
"""


def test_skipping_the_search_does_not_import_importlib_metadata_nor_leave_a_stand_in(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PARLEY_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", AFTER_SKIP], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["imported"] is False  # about 20 ms of each CLI start (bench/RESULTS.md, issue 17)
    assert seen["real"] is True  # a later import gets the real module
    assert seen["plugins"] == []
    assert seen["console_scripts"] > 0  # the loader's entry_points reaches the real one (parley's own script)
