"""Whether GPU layers do anything is asked of the metadata child, never of llama.cpp in the window: Preferences >
Local models opened in a real window leaves ``llama_cpp`` out of this process, says "checking…" until the child
answers, then shows the answer (the child really runs llama.cpp); the answer is reused from gpu_support.json by
a later session of the same build, and a child that fails gives a clear note, remembered nowhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.engine import gpu_check, gpu_support, tuning
from app.engine.tuning_panel import GPU_CHECKING
from app.secrets.store import SecretStore
from app.session.gui import build_window
from tests.support.memory_keyring import MemoryKeyring

REPO = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(gpu_support.build_key() is None, reason="llama-cpp-python is not installed")


def llama_modules() -> list[str]:
    return [name for name in sys.modules if name.split(".")[0] == "llama_cpp"]


@pytest.fixture
def no_llama_here(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """This process as a fresh window: llama_cpp not loaded yet (an earlier test may have), nothing cached."""
    for name in llama_modules():
        monkeypatch.delitem(sys.modules, name)  # put back afterwards
    tuning.gpu_offload.cache_clear()
    gpu_check.forget_session_answers()
    yield
    gpu_check.forget_session_answers()
    for name in llama_modules():  # a failing test loaded it again: drop that copy before the originals return
        del sys.modules[name]


def truth() -> bool | None:
    """What llama.cpp says in a process of its own."""
    done = subprocess.run([sys.executable, "-c", "from app.engine import gpu_support; print(gpu_support.probe())"],
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
                          timeout=60, check=True)
    return {"True": True, "False": False, "None": None}[done.stdout.strip()]


def open_tab(qtbot, parley_home: Path):  # type: ignore[no-untyped-def]
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    window.show()
    dialog = session.open_preferences()
    return session, dialog, dialog.local_models_panel


def test_the_tab_asks_a_child_and_llama_cpp_stays_out_of_the_window(qtbot, qasync_loop, parley_home: Path,
                                                                     no_llama_here: None) -> None:
    expected = truth()
    session, dialog, panel = open_tab(qtbot, parley_home)
    try:
        assert llama_modules() == [], "opening the tab loaded llama.cpp into the window's process"
        note = panel.tab.tuning.gpu_note
        assert note.text() == f"0 to 999 (999: all); {GPU_CHECKING}"
        assert panel.tab.tuning.gpu_layers.isEnabled() and panel.tab.tuning.context.isEnabled()
        qtbot.waitUntil(lambda: GPU_CHECKING not in note.text(), timeout=60_000)
        assert note.text() == "0 to 999 (999: all)" + {
            True: "", False: "; this build of llama.cpp is CPU-only: GPU layers are ignored",
            None: "; the built-in engine is not installed"}[expected]
        assert llama_modules() == []
        if expected is not None:
            stored = json.loads((session.engine.log_path.parent / gpu_support.CACHE_NAME).read_text())
            assert stored == {"key": gpu_support.build_key(), "offload": expected}
    finally:
        dialog.reject()
        qasync_loop.run_until_complete(session.aclose())


def test_a_later_session_of_the_same_build_reads_the_answer_without_a_child(qtbot, qasync_loop, parley_home: Path,
                                                                          no_llama_here: None) -> None:
    data = parley_home / "data"
    data.mkdir(parents=True)
    key = gpu_support.build_key()
    assert key is not None
    # a stored answer for this build is used as it is: the opposite of any real GPU build shows it was read
    (data / gpu_support.CACHE_NAME).write_text(json.dumps({"key": key, "offload": False}))
    session, dialog, panel = open_tab(qtbot, parley_home)
    try:
        assert session.engine.log_path.parent == data
        assert panel.gpu.job is None
        assert panel.tab.tuning.gpu_note.text().endswith("CPU-only: GPU layers are ignored")
    finally:
        dialog.reject()
        qasync_loop.run_until_complete(session.aclose())
    gpu_check.forget_session_answers()
    (data / gpu_support.CACHE_NAME).write_text(json.dumps({"key": "another build", "offload": False}))
    session, dialog, panel = open_tab(qtbot, parley_home)
    try:
        assert panel.gpu.job is not None and GPU_CHECKING in panel.tab.tuning.gpu_note.text()
    finally:
        dialog.reject()
        qasync_loop.run_until_complete(session.aclose())
    assert llama_modules() == []


def test_a_broken_llama_cpp_gives_a_clear_note_and_is_not_remembered(qtbot, qasync_loop, parley_home: Path,
                                                                     tmp_path: Path, no_llama_here: None,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "broken" / "llama_cpp"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise RuntimeError('undefined symbol: llama_backend_init')\n")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(broken.parent), str(REPO)]))  # the child finds it first
    session, dialog, panel = open_tab(qtbot, parley_home)
    try:
        note = panel.tab.tuning.gpu_note
        qtbot.waitUntil(lambda: GPU_CHECKING not in note.text(), timeout=60_000)
        assert note.text() == ("0 to 999 (999: all); could not check whether llama.cpp can use a GPU (llama.cpp did "
                               "not load (RuntimeError: undefined symbol: llama_backend_init)); GPU layers are saved "
                               "and used if the build supports them")
        assert not (session.engine.log_path.parent / gpu_support.CACHE_NAME).exists()
        assert gpu_support.build_key() not in gpu_check._SESSION
    finally:
        dialog.reject()
        qasync_loop.run_until_complete(session.aclose())
