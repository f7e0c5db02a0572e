"""The built-in engine for real, with its settings changed in Preferences while it runs: the window answers
with the demo model (llama.cpp's server started with the default 4,096-token context), the context is changed
to 2,048 in Preferences > Local models > Engine settings, and the next answer comes from a server started with
2,048 (its command line, and llama.cpp's own report of the context it made, in the engine's log)."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.secrets.store import SecretStore
from app.session.gui import build_window
from tests.support.llama_server import llama_cpp_missing
from tests.support.memory_keyring import MemoryKeyring

pytestmark = pytest.mark.skipif(llama_cpp_missing() is not None, reason=llama_cpp_missing() or "")


def flag(pid: int | None, name: str) -> str:
    args = Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")
    return args[args.index(name) + 1]


def contexts_made() -> list[int]:
    """Each ``llama_context: n_ctx = N`` llama.cpp wrote to the engine's log, in order."""
    log = (Path(os.environ["PARLEY_HOME"]) / "data" / "engine.log").read_text(errors="replace")
    return [int(n) for n in re.findall(r"llama_context: n_ctx\s+=\s+(\d+)", log)]


def test_a_context_changed_in_preferences_serves_the_next_answer(qtbot, qasync_loop, parley_home: Path) -> None:
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    window.show()

    def ask(text: str) -> None:
        done = qasync_loop.create_future()

        def finished(event) -> None:  # type: ignore[no-untyped-def]
            if event.type == "done" and not done.done():
                done.set_result(event)

        session.controller.event_emitted.connect(finished)
        composer_input = window.composer.input_widget()
        qtbot.keyClicks(composer_input, text)
        qtbot.keyClick(composer_input, Qt.Key.Key_Return)
        event = qasync_loop.run_until_complete(asyncio.wait_for(done, 240))
        session.controller.event_emitted.disconnect(finished)
        assert event.finish_reason in ("stop", "length")

    try:
        ask("Say hello.")
        first = session.engine.pid
        assert flag(first, "--n_ctx") == "4096" and contexts_made() == [4096]

        dialog = session.open_preferences()
        box = dialog.local_models_panel.tab.tuning
        box.context.setValue(2048)
        qtbot.mouseClick(box.apply_button, Qt.MouseButton.LeftButton)
        assert box.status.text().startswith("Saved. Restarting the engine")
        assert session.settings.engine.context_size == 2048
        dialog.accept()  # OK keeps the engine section as the tab saved it

        ask("Say hello again.")
        served = session.engine.pid
        assert served != first and flag(served, "--n_ctx") == "2048"
        assert contexts_made() == [4096, 2048]  # one restart, made by llama.cpp with the new context
        assert session.settings.engine.context_size == 2048
    finally:
        qasync_loop.run_until_complete(session.aclose())


def test_preferences_ok_with_a_new_context_reaches_the_running_engine(qtbot, qasync_loop, parley_home: Path
                                                                      ) -> None:
    """The path every Preferences OK takes (``apply_preferences``): before, the engine kept its old context
    until it happened to stop."""
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    try:
        url = qasync_loop.run_until_complete(session.engine.ensure())
        first = session.engine.pid
        changed = session.settings.model_copy(deep=True)
        changed.engine.context_size = 1024
        session.apply_preferences(changed)
        qasync_loop.run_until_complete(asyncio.sleep(0.5))
        assert qasync_loop.run_until_complete(session.engine.ensure()) != url or session.engine.pid != first
        assert flag(session.engine.pid, "--n_ctx") == "1024" and contexts_made()[-1] == 1024
    finally:
        qasync_loop.run_until_complete(session.aclose())


def test_a_context_past_the_models_trained_one_runs_with_the_trained_one(parley_home: Path) -> None:
    """settings.json asks for 16,384 tokens (its own bounds allow it; a file from another model's machine); the
    demo model was trained on 8,192: llama.cpp is given 8,192 and ``parley chat`` says why."""
    from app.paths import resolve_paths
    from app.settings import Settings, save_settings
    from tests.e2e.test_cli_chat import parley

    settings = Settings()
    settings.engine.context_size = 16384
    save_settings(settings, resolve_paths().settings)
    result = parley("chat", "--provider", "builtin", "--tools", "none", "--max-output-tokens", "16", "Say hi.",
                    timeout=240)
    assert result.returncode == 0, result.stderr
    assert ("context 8,192 tokens, what smollm2-135m-instruct was trained on (the engine setting of 16,384 is "
            "more than it can use)") in result.stderr
    assert contexts_made() == [8192]  # llama.cpp's own report of the context it made
