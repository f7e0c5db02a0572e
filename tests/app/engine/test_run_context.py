"""The context a model runs with is checked against that model, not only the default one: a conversation using
another local model trained on less is started with that model's trained context (its GGUF metadata), and the
engine's status says so with both numbers; the default model, trained on more, gets the setting; a model whose
metadata cannot be read gets the setting as it is. A stand-in server plays llama.cpp (its command line is what
the child was started with)."""

from __future__ import annotations

from pathlib import Path

from app.engine.manager import BuiltinEngine, EngineStatus
from app.engine.run_context import run_context
from app.engine.settings import EngineSettings, LocalModel
from tests.app.engine.test_settings_reach_engine import flag, until
from tests.support.gguf_files import write_gguf


def two_models(tmp_path: Path, model_file: Path) -> EngineSettings:
    big = write_gguf(tmp_path / "big.gguf", context_length=16384)
    small = write_gguf(tmp_path / "small.gguf", context_length=2048)
    return EngineSettings(models=[LocalModel(name="big", path=str(big)), LocalModel(name="small", path=str(small)),
                                  LocalModel(name="unread", path=str(model_file))],
                          default_model="big", context_size=8192, idle_stop_minutes=0)


async def test_each_model_runs_with_at_most_its_trained_context(tmp_path: Path, model_file: Path,
                                                                fake_python: str) -> None:
    engine = BuiltinEngine(two_models(tmp_path, model_file), tmp_path / "data", python=fake_python)
    heard: list[EngineStatus] = []
    engine.add_listener(heard.append)
    try:
        await engine.ensure()  # the default, trained on 16,384: the setting
        assert flag(engine.pid, "--n_ctx") == "8192"
        default_status = engine.status

        await engine.ensure("small")  # trained on 2,048: never the 8,192 of the setting
        assert flag(engine.pid, "--n_ctx") == "2048"
        note = "context 2,048 tokens, what small was trained on (the engine setting of 8,192 is more than it can use)"
        assert engine.status.phase == "ready" and engine.status.note == note and default_status.note == ""
        assert engine.status.detail.endswith(f"; {note}")
        assert any(s.phase == "starting" and note in s.detail for s in heard)
        pid = engine.pid
        await engine.ensure("small")  # the limited context is what it was started with: no restart
        assert engine.pid == pid

        assert engine.apply_settings(engine.settings.model_copy(update={"context_size": 1024})) == "restarting"
        await until(lambda: engine.pid not in (None, pid) and engine.status.phase == "ready")
        assert flag(engine.pid, "--n_ctx") == "1024" and engine.status.note == ""  # under its limit: as set

        await engine.ensure("unread")  # no metadata to check against: the setting
        assert flag(engine.pid, "--n_ctx") == "1024"
    finally:
        await engine.aclose()


def test_the_limit_applies_only_below_the_setting() -> None:
    assert run_context(8192, "m", None).tokens == 8192
    assert run_context(8192, "m", 8192) == run_context(8192, "m", None)
    assert run_context(8192, "m", 4096).tokens == 4096
    assert run_context(8192, "m", 100).tokens == 8192  # a nonsense trained context is not believed


def test_two_writers_of_the_metadata_cache_keep_each_others_entries(tmp_path: Path) -> None:
    """The engine and the window's Local models tab (or a ``parley local`` command) each keep an InfoCache of
    the same data folder: one saving must not drop what the other saved since it was opened."""
    from app.engine.gguf_info import InfoCache, read_info

    big = write_gguf(tmp_path / "big.gguf", context_length=16384)
    small = write_gguf(tmp_path / "small.gguf", context_length=2048)
    engine_side, window_side = InfoCache(tmp_path / "data"), InfoCache(tmp_path / "data")
    engine_side.remember(big, read_info(big))
    window_side.remember(small, read_info(small))
    fresh = InfoCache(tmp_path / "data")
    assert fresh.cached(big) is not None and fresh.cached(small) is not None
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["model_info.json"]  # no temporary file left
