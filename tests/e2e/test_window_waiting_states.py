"""The run's waiting states in the real window: the typing indicator until the first token, and a pending chip
while a tool call waits for approval; each goes away on the first token, a decision, Stop or an error. The
approval question belongs to its conversation: it leaves the panel when another conversation is shown and
comes back with it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_chunks, stream_response
from tests.support.window_snapshot import chips, until


def open_window(qtbot: Any, server: LoopbackServer, workspace: Path) -> tuple[Any, Any, list[Any]]:
    workspace.mkdir(exist_ok=True)
    (workspace / "notes.txt").write_text("otters\n")
    save_settings(Settings(providers=[ProviderSettings(id="local", base_url=server.url + "/v1", default_model="m")],
                           default_provider="local", workspace_folders=[str(workspace)]), resolve_paths().settings)
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    window.show()
    ended: list[Any] = []
    session.controller.run_finished.connect(ended.append)
    return window, session, ended


def asks_for_a_file(request: Request) -> Response | None:
    if not any(m["role"] == "tool" for m in request.json["messages"]):
        return stream_response("", calls=[("r1", "read_file", {"path": "notes.txt"})])
    return stream_response("Read it.")


@pytest.fixture
def approval_server():
    with LoopbackServer(handler=asks_for_a_file) as server:
        yield server


def asked_to_read(qtbot: Any, loop: Any, server: LoopbackServer, tmp_path: Path) -> tuple[Any, Any, list[Any]]:
    """The window, after a send whose run now waits for the user's approval of ``read_file``."""
    window, session, ended = open_window(qtbot, server, tmp_path / "work")
    session.send("read my notes")
    until(loop, lambda: window.approval.is_asking())
    return window, session, ended


def test_the_typing_indicator_shows_until_the_first_token(qtbot, qasync_loop, loopback, tmp_path):
    first = stream_chunks("Hello there.")
    loopback.add("POST", "/v1/chat/completions", Response.sse(first, done=True, chunk_delay=0.3))
    window, session, ended = open_window(qtbot, loopback, tmp_path / "work")
    session.send("hi")
    assert window.typing.text() == "Waiting for the model…" and window.typing.isVisible()
    until(qasync_loop, lambda: "Hello" in "".join(m.text for m in window.chat_view.messages()))
    assert window.typing.text() == ""  # the first token arrived
    until(qasync_loop, lambda: bool(ended))
    assert window.typing.text() == ""
    session.history.close()


def test_the_typing_indicator_goes_on_an_error_and_on_stop(qtbot, qasync_loop, loopback, tmp_path):
    loopback.add("POST", "/v1/chat/completions",
                 Response.json({"error": {"message": "model not loaded"}}, status=400),
                 Response(hang_before_headers=True))
    window, session, ended = open_window(qtbot, loopback, tmp_path / "work")
    session.send("hi")
    assert window.typing.text() == "Waiting for the model…"
    until(qasync_loop, lambda: bool(ended))
    assert window.typing.text() == "" and "model not loaded" in window.chat_view.toPlainText()

    session.send("again")  # this request is never answered
    until(qasync_loop, lambda: loopback.count == 2)
    assert window.typing.text() == "Waiting for the model…"
    window.composer.stop_requested.emit()  # Stop (or Esc)
    until(qasync_loop, lambda: len(ended) == 2)
    assert window.typing.text() == "" and not window.composer.is_running()
    session.history.close()


def test_a_pending_chip_until_the_decision(qtbot, qasync_loop, approval_server, tmp_path):
    window, session, ended = asked_to_read(qtbot, qasync_loop, approval_server, tmp_path)
    assert chips(window) == [("read_file", "waiting for your approval")]
    assert window.typing.text() == "Waiting for your approval…"
    window.approval.allow_all.click()
    until(qasync_loop, lambda: bool(ended))
    qasync_loop.run_until_complete(asyncio.sleep(0.05))
    assert chips(window) == [("read_file", "ok")] and window.chat_view.pending_chips() == []
    assert window.typing.text() == "" and not window.approval.is_asking()
    session.history.close()


def test_stop_while_an_approval_is_pending_ends_the_pending_chip(qtbot, qasync_loop, approval_server, tmp_path):
    window, session, ended = asked_to_read(qtbot, qasync_loop, approval_server, tmp_path)
    window.composer.stop_requested.emit()
    until(qasync_loop, lambda: bool(ended))
    assert chips(window) == [("read_file", "not run (the run ended first)")]
    assert window.typing.text() == "" and not window.approval.is_asking()
    session.open_conversation(session.conversation_id)  # read back: the same words
    assert chips(window) == [("read_file", "not run (the run ended first)")]
    session.history.close()


def test_the_approval_question_stays_with_its_conversation(qtbot, qasync_loop, approval_server, tmp_path):
    window, session, ended = asked_to_read(qtbot, qasync_loop, approval_server, tmp_path)
    asking = session.conversation_id
    session.new_chat()  # another conversation: its panel asks nothing, its chat waits for nothing
    assert not window.approval.is_asking() and window.typing.text() == "" and chips(window) == []
    window.approval.deny_all.click()  # a hidden panel's buttons decide nothing for the other conversation
    session.open_conversation(asking)
    assert window.approval.is_asking() and chips(window) == [("read_file", "waiting for your approval")]
    assert window.typing.text() == "Waiting for your approval…" and window.composer.is_running()
    window.approval.allow_all.click()
    until(qasync_loop, lambda: bool(ended))
    qasync_loop.run_until_complete(asyncio.sleep(0.05))
    assert chips(window) == [("read_file", "ok")] and "Read it." in window.chat_view.toPlainText()
    session.history.close()
