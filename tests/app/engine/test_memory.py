"""The too-big-for-memory warning: said when a model's file is larger than the memory available, with what to
do, noted on the Local models tab's row, and in the status the engine reports while it starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.engine import memory
from tests.support.gguf_files import write_gguf


def test_a_model_larger_than_the_available_memory_is_warned_about() -> None:
    assert memory.too_big_warning(4_000_000_000, available=8_000_000_000) is None
    warning = memory.too_big_warning(9_000_000_000, available=4_000_000_000)
    assert warning is not None and "9.0 GB" in warning and "4.0 GB is available" in warning
    assert "smaller quantization" in warning
    assert (memory.available_memory() or 0) > 0  # this machine's MemAvailable


def test_the_tab_notes_it_on_the_row(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.app.engine.test_local_models_panel import Session, make_panel

    monkeypatch.setattr(memory, "available_memory", lambda: 1000)
    model = write_gguf(tmp_path / "big.gguf")
    session = Session(tmp_path)
    tab, panel = make_panel(qtbot, session)
    tab.add_requested.emit(str(model))
    qtbot.waitUntil(lambda: "only 0.0 GB is available" in next(r for r in tab.rows if r.name == "big").note,
                    timeout=10_000)
    panel.close()


async def test_starting_a_model_too_big_for_the_memory_says_so(engine_settings, tmp_path: Path, fake_python: str,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from app.engine.manager import BuiltinEngine, EngineStatus

    monkeypatch.setattr(memory, "available_memory", lambda: 1000)
    statuses: list[EngineStatus] = []
    engine = BuiltinEngine(engine_settings, tmp_path / "data", python=fake_python)
    engine.add_listener(statuses.append)
    await engine.ensure()
    assert "this model needs about" in statuses[0].detail and "smaller quantization" in statuses[0].detail
    await engine.aclose()
