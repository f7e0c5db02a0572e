"""The real window writes a file for a model only after the user allows it, and a denied write changes nothing.

A local OpenAI-compatible server plays the model: it asks for ``edit_file`` on a file in a read-write workspace
folder, then answers with what the tool said. The approval panel must show the diff (not the raw JSON), and the
file on disk must change only after "Allow once".
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_response

ORIGINAL = "# Plan\n\n- buy milk\n- call Ada\n"
EDIT = {"path": "plan.md", "old_text": "- buy milk\n", "new_text": "- buy oat milk\n- book the train\n"}


def editing_model(request: Request) -> Response | None:
    if request.path != "/v1/chat/completions":
        return None
    results = [m for m in request.json["messages"] if m["role"] == "tool"]
    if not results:
        return stream_response("I'll update the plan.", calls=[("call_e1", "edit_file", EDIT)])
    return stream_response(f"The tool said: {results[-1]['content']}")


@pytest.fixture
def workspace(parley_home: Path, tmp_path: Path):
    folder = tmp_path / "plans"
    folder.mkdir()
    (folder / "plan.md").write_text(ORIGINAL)
    with LoopbackServer(handler=editing_model) as server:
        settings = Settings(providers=[ProviderSettings(id="local", preset="custom", base_url=server.url + "/v1",
                                                        default_model="test-model")], default_provider="local",
                            workspace_folders=[str(folder)], workspace_writable=[str(folder)])
        save_settings(settings, resolve_paths().settings)
        yield folder


def run_until_asked_then(qtbot, qasync_loop, choose: str) -> tuple[str, str]:
    window, session = build_window(secrets=SecretStore(MemoryKeyring()))
    qtbot.addWidget(window)
    window.show()
    done = qasync_loop.create_future()
    session.controller.event_emitted.connect(
        lambda e: done.set_result(e) if e.type == "done" and not done.done() else None)
    session.send("Add oat milk and the train to my plan.")

    async def wait_for_question() -> None:
        deadline = time.monotonic() + 10
        while not window.approval.cards:
            assert time.monotonic() < deadline, "the approval panel never asked"
            await asyncio.sleep(0.02)

    qasync_loop.run_until_complete(wait_for_question())
    card = window.approval.cards[0]
    shown = card.arguments.toPlainText()
    getattr(card, choose).click()
    event = qasync_loop.run_until_complete(asyncio.wait_for(done, 15))
    assert event.finish_reason == "stop"
    window.chat_view.flush()
    text = window.chat_view.toPlainText()
    session.history.close()
    return shown, text


def test_an_allowed_edit_shows_its_diff_first_and_then_changes_the_file(qtbot, qasync_loop, workspace):
    shown, text = run_until_asked_then(qtbot, qasync_loop, "allow")
    assert shown.startswith("Edit plan.md: ")
    assert "-- buy milk" in shown and "+- buy oat milk" in shown and "+- book the train" in shown
    assert json.dumps(EDIT["new_text"]) not in shown  # the diff, not the raw arguments
    assert (workspace / "plan.md").read_text() == "# Plan\n\n- buy oat milk\n- book the train\n- call Ada\n"
    assert "The tool said: Edited plan.md" in text


def test_a_denied_edit_leaves_the_disk_unchanged(qtbot, qasync_loop, workspace):
    before = {p.name: p.read_bytes() for p in workspace.iterdir()}
    shown, text = run_until_asked_then(qtbot, qasync_loop, "deny")
    assert "+- buy oat milk" in shown
    assert {p.name: p.read_bytes() for p in workspace.iterdir()} == before
    assert "The tool said: denied by the user" in text
