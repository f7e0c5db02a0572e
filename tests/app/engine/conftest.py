"""A fake ``python`` that runs tests/support/fake_engine.py instead of llama.cpp's server, and a GGUF-looking
model file, for the engine-management tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.engine.settings import EngineSettings, LocalModel

FAKE_ENGINE = Path(__file__).resolve().parents[2] / "support" / "fake_engine.py"


@pytest.fixture
def fake_python(tmp_path: Path) -> str:
    """An executable that takes ``-m llama_cpp.server ARGS`` and runs the stand-in server with ARGS."""
    script = tmp_path / "fake-python"
    script.write_text(f'#!/bin/sh\nshift 2\nexec "{sys.executable}" "{FAKE_ENGINE}" "$@"\n')
    script.chmod(0o755)
    return str(script)


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF" + b"\0" * 2048)
    return path


@pytest.fixture
def engine_settings(model_file: Path) -> EngineSettings:
    return EngineSettings(models=[LocalModel(name="tiny", path=str(model_file))], default_model="tiny",
                          idle_stop_minutes=0)
