"""``parley local settings`` and ``parley local set`` as real processes: values are checked against the named
limits (the context against the default model's trained context from its GGUF file), saved to settings.json,
and a value past its limit is a usage error that saves nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

from app.engine import tuning
from tests.e2e.test_cli_chat import parley
from tests.support.gguf_files import write_gguf


def saved_engine() -> dict:
    return json.loads((Path(os.environ["PARLEY_HOME"]) / "config" / "settings.json").read_text())["engine"]


def test_set_checks_each_limit_and_saves(tmp_path: Path) -> None:
    model = write_gguf(tmp_path / "small.gguf", context_length=16384)
    assert parley("local", "add", str(model), "--default").returncode == 0

    context = parley("local", "set", "context", "8192")
    assert context.returncode == 0, context.stderr
    assert "context: 8,192 tokens; the engine uses it when it next starts" in context.stderr
    assert saved_engine()["context_size"] == 8192

    too_big = parley("local", "set", "context", "32768")
    assert too_big.returncode == 2
    assert "context must be 512 to 16,384 (what small was trained on), not 32,768" in too_big.stderr
    threads = parley("local", "set", "threads", str(tuning.cpu_count() + 1))
    assert threads.returncode == 2 and f"threads must be 1 to {tuning.cpu_count()}" in threads.stderr
    not_a_number = parley("local", "set", "idle-stop", "soon")
    assert not_a_number.returncode == 2 and "idle-stop takes a whole number" in not_a_number.stderr
    assert saved_engine()["context_size"] == 8192 and saved_engine()["threads"] is None

    layers = parley("local", "set", "gpu-layers", "20")
    assert layers.returncode == 0 and saved_engine()["gpu_layers"] == 20
    if tuning.gpu_offload() is False:
        assert "this build of llama.cpp is CPU-only" in layers.stderr
    assert parley("local", "set", "idle-stop", "0").returncode == 0 and saved_engine()["idle_stop_minutes"] == 0
    assert parley("local", "set", "threads", "1").returncode == 0 and saved_engine()["threads"] == 1
    assert parley("local", "set", "threads", "auto").returncode == 0 and saved_engine()["threads"] is None

    shown = parley("local", "settings")
    assert shown.returncode == 0, shown.stderr
    lines = dict(line.split("\t", 1) for line in shown.stdout.splitlines())
    assert lines["context"] == "8,192 tokens\t512 to 16,384: what small was trained on"
    assert lines["idle-stop"].startswith("never\t")
    assert lines["gpu-layers"].startswith("20\t0 to 999 (999: all)")
