"""``parley local`` as a real process: the demo model is listed, a GGUF file is added (and a file that is not
one is refused and nothing is saved), made the default, and removed."""

from __future__ import annotations

import json
import os
from pathlib import Path

from app.engine.library import DEMO_MODEL
from tests.e2e.test_cli_chat import parley
from tests.support.gguf_files import write_gguf


def settings_file() -> Path:
    return Path(os.environ["PARLEY_HOME"]) / "config" / "settings.json"


def test_the_library_from_add_to_remove(tmp_path: Path) -> None:
    listed = parley("local", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert rows[0]["name"] == DEMO_MODEL and rows[0]["default"] and rows[0]["demo"]

    model = tmp_path / "Tiny-Model.Q8_0.gguf"
    write_gguf(model)
    added = parley("local", "add", str(model), "--default")
    assert added.returncode == 0, added.stderr
    assert "added tiny-model.q8_0" in added.stderr
    saved = json.loads(settings_file().read_text())["engine"]
    assert saved["default_model"] == "tiny-model.q8_0" and saved["models"][0]["path"] == str(model)

    text = parley("local", "list")
    assert "* tiny-model.q8_0" in text.stdout and f"  {DEMO_MODEL}" in text.stdout

    assert parley("local", "default", DEMO_MODEL).returncode == 0
    assert json.loads(settings_file().read_text())["engine"]["default_model"] is None
    removed = parley("local", "remove", "tiny-model.q8_0")
    assert removed.returncode == 0 and "still on disk" in removed.stderr and model.exists()
    assert json.loads(settings_file().read_text())["engine"]["models"] == []


def test_a_file_that_is_not_gguf_is_refused_and_nothing_is_saved(tmp_path: Path) -> None:
    page = tmp_path / "model.gguf"
    page.write_text("<html>404 Not Found</html>")
    refused = parley("local", "add", str(page))
    assert refused.returncode == 1
    assert "is not a GGUF model" in refused.stderr
    assert not settings_file().exists()


def test_unknown_names_and_the_demo_model_are_usage_errors() -> None:
    unknown = parley("local", "default", "nope")
    assert unknown.returncode == 2 and "no local model 'nope'" in unknown.stderr
    demo = parley("local", "remove", DEMO_MODEL)
    assert demo.returncode == 2 and "cannot be removed" in demo.stderr


