"""Every built-in tool's argument model is built at its first use, not when the tools are imported (issue 17:
``parley tools list`` needs no argument model; tools/arguments.py), and builds to the same contract then."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from orchestration.tool_api import ToolArgumentsError
from tools import WorkspaceSettings, default_registry

REPO = Path(__file__).resolve().parents[2]

# In a fresh process: the built-in tools registered as `tools list` does, then which argument models are built.
LISTING = r"""
import json, sys
from pathlib import Path
from tools import WorkspaceSettings, default_registry
folder = Path(sys.argv[1])
registry = default_registry(workspace=WorkspaceSettings(folders=[folder], writable=[folder]))
models = {tool.name: tool.arguments for tool in registry}
built_at_listing = sorted(name for name, model in models.items() if model.__pydantic_complete__)
specs = {spec.name: spec.parameters for spec in registry.specs()}
print(json.dumps({"names": sorted(models), "built": built_at_listing,
                  "complete_after_specs": all(m.__pydantic_complete__ for m in models.values()),
                  "specs": specs}))
"""


def _listing(folder: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", LISTING, str(folder)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_no_built_in_tool_builds_its_argument_model_until_used(tmp_path: Path) -> None:
    seen = _listing(tmp_path)
    assert {"read_file", "edit_file", "web_search", "web_fetch", "calculate"} <= set(seen["names"]), seen["names"]
    assert seen["built"] == []
    assert seen["complete_after_specs"] is True


def test_the_deferred_models_give_the_same_schemas_and_validation(tmp_path: Path) -> None:
    specs = _listing(tmp_path)["specs"]
    registry = default_registry(workspace=WorkspaceSettings(folders=[tmp_path], writable=[tmp_path]))
    read_file = registry.get("read_file")
    assert read_file is not None
    assert specs["read_file"]["properties"]["path"]["type"] == "string"
    assert specs["read_file"]["required"] == ["path"]
    assert json.dumps(specs, sort_keys=True) == json.dumps({s.name: s.parameters for s in registry.specs()},
                                                           sort_keys=True)
    try:
        read_file.validate({"start_line": 0})
    except ToolArgumentsError as exc:
        assert "path" in str(exc)
    else:
        raise AssertionError("read_file accepted arguments without a path")
