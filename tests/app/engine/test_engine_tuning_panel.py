"""Preferences > Local models > Engine settings on real files and a real tab: the rows show the saved values
with their limits (the context bounded by the default model's trained context from its GGUF file), Apply saves
to settings.json and restarts a running idle engine (a stand-in server) with the new context, a run in progress
keeps its engine and the tab says the change applies after the answer, and a value past its limit is refused
with nothing saved."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from PySide6.QtCore import Qt

from app.engine import tuning
from app.engine.local_models_panel import LocalModelsPanel
from app.engine.manager import BuiltinEngine
from app.engine.settings import LocalModel
from app.settings import Settings, save_settings
from tests.support.gguf_files import write_gguf
from widgets.preferences_local_models import LocalModelsTab


class Session:
    def __init__(self, tmp_path: Path, python: str) -> None:
        self.settings = Settings()
        self.settings_path = tmp_path / "config" / "settings.json"
        self.engine = BuiltinEngine(self.settings.engine, tmp_path / "data", python=python)

    def refresh_providers(self) -> None:
        pass

    def save_settings(self, settings: Settings) -> None:
        self.settings = settings
        save_settings(settings, self.settings_path)

    def saved_engine(self) -> dict:
        return json.loads(self.settings_path.read_text())["engine"] if self.settings_path.exists() else {}


def flag(pid: int | None, name: str) -> str:
    args = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    return args[args.index(name) + 1]


async def _wait(condition, seconds: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")



def restarted(qasync_loop, session, first: int | None) -> None:  # type: ignore[no-untyped-def]
    """Waits until the engine runs again as a new process (not ``first``) and is ready."""
    qasync_loop.run_until_complete(_wait(lambda: session.engine.pid not in (None, first)
                                         and session.engine.status.phase == "ready"))

def tab_with_default_model(qtbot, qasync_loop, tmp_path: Path, fake_python: str
                           ) -> tuple[Session, LocalModelsTab, LocalModelsPanel]:
    session = Session(tmp_path, fake_python)
    model = write_gguf(tmp_path / "tiny.gguf", context_length=16384)
    tab = LocalModelsTab([], LocalModelsPanel.choices(), confirm=lambda _p, _q: True)
    qtbot.addWidget(tab)
    panel = LocalModelsPanel(session, tab)
    tab.add_requested.emit(str(model))
    tab.select("tiny")
    qtbot.mouseClick(tab.default_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.tuning.context.maximum() == 16384, timeout=20_000)  # its metadata was read
    return session, tab, panel


def test_apply_saves_and_restarts_the_idle_engine_with_the_new_context(qtbot, qasync_loop, tmp_path: Path,
                                                                       fake_python: str) -> None:
    session, tab, panel = tab_with_default_model(qtbot, qasync_loop, tmp_path, fake_python)
    try:
        box = tab.tuning
        assert box.context.value() == 4096 and box.context.minimum() == 512
        assert "what tiny was trained on" in box.context_note.text()
        assert box.threads.maximum() == tuning.cpu_count() and box.gpu_layers.maximum() == 999
        assert not box.apply_button.isEnabled()  # nothing changed yet
        qasync_loop.run_until_complete(session.engine.ensure())
        first = session.engine.pid
        assert flag(first, "--n_ctx") == "4096"

        box.context.setValue(2048)
        box.idle_stop.setValue(15)
        qtbot.mouseClick(box.apply_button, Qt.MouseButton.LeftButton)
        assert session.saved_engine()["context_size"] == 2048 and session.saved_engine()["idle_stop_minutes"] == 15
        assert box.status.text().startswith("Saved. Restarting the engine")
        restarted(qasync_loop, session, first)
        assert flag(session.engine.pid, "--n_ctx") == "2048"
        assert box.status.text() == "Applied: the engine runs tiny with the new settings."
        assert not box.apply_button.isEnabled()
    finally:
        panel.close()
        qasync_loop.run_until_complete(session.engine.aclose())


def test_during_a_run_the_change_applies_after_the_answer(qtbot, qasync_loop, tmp_path: Path,
                                                          fake_python: str) -> None:
    session, tab, panel = tab_with_default_model(qtbot, qasync_loop, tmp_path, fake_python)
    try:
        session.engine.begin_run()
        qasync_loop.run_until_complete(session.engine.ensure())
        first = session.engine.pid
        tab.tuning.context.setValue(8192)
        qtbot.mouseClick(tab.tuning.apply_button, Qt.MouseButton.LeftButton)
        assert "Applies after the current answer" in tab.tuning.status.text()
        qasync_loop.run_until_complete(asyncio.sleep(0.3))
        assert session.engine.pid == first and flag(first, "--n_ctx") == "4096"
        session.engine.end_run()
        restarted(qasync_loop, session, first)
        assert flag(session.engine.pid, "--n_ctx") == "8192"
        assert tab.tuning.status.text().startswith("Applied")
    finally:
        panel.close()
        qasync_loop.run_until_complete(session.engine.aclose())


def test_a_value_past_its_limit_is_refused_and_nothing_is_saved(qtbot, qasync_loop, tmp_path: Path,
                                                                fake_python: str) -> None:
    session, tab, panel = tab_with_default_model(qtbot, qasync_loop, tmp_path, fake_python)
    try:
        before = session.saved_engine()
        panel.tuning.apply(32768, tuning.cpu_count(), 0, 10)  # the spin box stops at 16,384; the app checks too
        assert tab.tuning.status.text() == ("Not saved: context must be 512 to 16,384 (what tiny was trained "
                                            "on), not 32,768.")
        panel.tuning.apply(4096, tuning.cpu_count() + 1, 0, 10)
        assert "threads must be 1 to" in tab.tuning.status.text()
        assert session.saved_engine() == before
    finally:
        panel.close()


def test_a_metadata_read_ending_keeps_what_the_user_is_typing(qtbot, tmp_path: Path, fake_python: str) -> None:
    """The default model's metadata is read by a child when the tab opens; the user types into two boxes
    meanwhile (one number whole, one half-typed). The read ending brings the trained context's limit but
    leaves both boxes as typed; the untouched boxes show the saved values. Apply then saves what was typed."""
    session = Session(tmp_path, fake_python)
    model = write_gguf(tmp_path / "tiny.gguf", context_length=16384)
    session.settings.engine = session.settings.engine.model_copy(
        update={"models": [LocalModel(name="tiny", path=str(model))], "default_model": "tiny"})
    tab = LocalModelsTab([], LocalModelsPanel.choices(), confirm=lambda _p, _q: True)
    qtbot.addWidget(tab)
    tab.show()
    panel = LocalModelsPanel(session, tab)
    try:
        box = tab.tuning
        assert panel._reader is not None and panel._reader.running()  # the read is under way
        assert box.context.maximum() == tuning.FALLBACK_MAX_CONTEXT  # not known yet
        box.context.setFocus()
        box.context.selectAll()
        qtbot.keyClicks(box.context, "8192")
        box.idle_stop.setFocus()
        box.idle_stop.selectAll()
        qtbot.keyClicks(box.idle_stop, "3")  # half-typed: the user means 30
        assert box.context.value() == 8192 and box.idle_stop.lineEdit().text() == "3 min"
        qtbot.waitUntil(lambda: box.context.maximum() == 16384, timeout=20_000)  # the read ended, limits shown
        assert "what tiny was trained on" in box.context_note.text()
        assert box.context.value() == 8192 and box.context.lineEdit().text() == "8192 tokens"  # as typed
        assert box.idle_stop.lineEdit().text() == "3 min"
        assert box.threads.value() == tuning.Values.of(session.settings.engine).threads  # untouched: as saved
        assert box.user_changed() == ["Context size", "Idle stop"]
        qtbot.keyClicks(box.idle_stop, "0")
        qtbot.mouseClick(box.apply_button, Qt.MouseButton.LeftButton)
        assert session.saved_engine()["context_size"] == 8192 and session.saved_engine()["idle_stop_minutes"] == 30
        assert box.user_changed() == [] and not box.apply_button.isEnabled()
    finally:
        panel.close()
