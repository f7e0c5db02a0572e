"""The real main window, offscreen, against a local OpenAI-compatible server and a local SearXNG.

Type a prompt, press Enter, wait for the run to end, then check the chat view, both panes, the database, and
that the conversation is still there after a restart.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from app.storage import History
from tests.support.engine_off import save_engine_off
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_response
from tests.support.search_wire import searxng_results
from widgets.conversation_delegate import PIECES_ROLE


def otter_model(request: Request) -> Response | None:
    if request.path == "/search":
        return Response.json(searxng_results())
    if request.path != "/v1/chat/completions":
        return None
    if not any(m["role"] == "tool" for m in request.json["messages"]):
        return stream_response("Let me look that up.", reasoning="The user asks about otters; search first.",
                               calls=[("call_s1", "web_search", {"query": "sea otters"})])
    return stream_response("## Sea otters\n\nThey **crack shells** with stones.\n",
                           reasoning="The results say they use tools.")


@pytest.fixture
def server():
    with LoopbackServer(handler=otter_model) as running:
        yield running


@pytest.fixture
def configured(server, parley_home: Path) -> Path:
    paths = resolve_paths()
    settings = Settings(providers=[ProviderSettings(id="local", preset="custom", base_url=server.url + "/v1",
                                                    default_model="test-model")], default_provider="local")
    settings.search.backend = "searxng"
    settings.search.base_urls = {"searxng": server.url}
    save_settings(settings, paths.settings)
    return parley_home


def test_type_send_and_read_back(qtbot, qasync_loop, configured, server):
    window, session = build_window(secrets=SecretStore(MemoryKeyring()))
    qtbot.addWidget(window)
    window.show()
    done = qasync_loop.create_future()
    session.controller.event_emitted.connect(
        lambda e: done.set_result(e) if e.type == "done" and not done.done() else None)
    assert window.centre_stack.currentWidget() is not window.welcome

    composer_input = window.composer.input_widget()
    qtbot.keyClicks(composer_input, "What do sea otters do?")
    qtbot.keyClick(composer_input, Qt.Key.Key_Return)
    event = qasync_loop.run_until_complete(asyncio.wait_for(done, 15))
    qasync_loop.run_until_complete(asyncio.sleep(0.05))  # let the frame timers flush
    window.chat_view.flush()

    assert event.finish_reason == "stop"
    text = window.chat_view.toPlainText()
    assert "What do sea otters do?" in text
    assert text.index("Let me look that up.") < text.index("web_search") < text.index("Sea otters")
    assert "crack shells" in text
    assert window.reasoning_pane.phase_count() == 2
    assert "search first" in window.reasoning_pane.phase_text(0)
    assert "Sea otter - Wikipedia" in " ".join(label.text() for label in window.search_pane.findChildren(QLabel))
    assert composer_input.toPlainText() == "" and not window.composer.is_running()
    assert window.conversations.ids_in_order() == [session.conversation_id]

    session.search("shells")  # the answer's markdown is not shown; the matched word is marked
    model = window.conversations.model
    hit = next(model.index(i, 0) for i in range(model.rowCount()) if "crack" in model.index(i, 0).data())
    assert "**" not in hit.data() and "They crack shells with stones." in hit.data()
    assert [text for text, marked in hit.data(PIECES_ROLE) if marked] == ["shells"]
    session.search("")

    qtbot.keyClick(window, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)  # the inspector drawer
    assert window.inspector.isVisible() and window.inspector.runs.count() == 1
    window.inspector.flush()
    live_rows = window.inspector.timeline_rows()
    assert [r[1:3] for r in live_rows if r[0] == "1" and r[1] == "web_search"] == [("web_search", "ok")]

    history = History.open(resolve_paths().database)
    records = history.branch(session.conversation_id)
    assert records[0].role == "user" and records[0].content == "What do sea otters do?"
    assert any("crack shells" in r.content for r in records if r.role == "assistant")
    assert history.runs(session.conversation_id)[0].finish_reason == "stop"
    history.close()
    session.history.close()

    again, again_session = build_window(secrets=SecretStore(MemoryKeyring()))
    qtbot.addWidget(again)
    assert again.conversations.ids_in_order() == [session.conversation_id]
    again_session.open_conversation(session.conversation_id)
    reopened = again.chat_view.toPlainText()
    assert "What do sea otters do?" in reopened and "crack shells" in reopened and "web_search" in reopened
    again.show()
    again.toggle_inspector()
    again.inspector.runs.setCurrentRow(0)
    assert again.inspector.timeline_rows() == live_rows  # the same timeline, read back from the database
    again_session.history.close()


def test_failed_send_keeps_the_text(qtbot, qasync_loop, parley_home):
    save_engine_off()  # else the built-in engine would answer
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    assert window.centre_stack.currentWidget() is window.welcome  # no provider yet: the welcome shows
    window.composer.input_widget().setPlainText("Keep me")
    session.send("Keep me")
    assert window.composer.input_widget().toPlainText().startswith("Keep me")
    assert window.centre_stack.currentWidget() is window.welcome  # with its "Add a provider…" button
    assert "No provider is set up" in window.welcome.notice_text()
    session.history.close()


def test_no_display_message(tmp_path):
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    script = Path(sys.executable).with_name("parley")
    proc = subprocess.run([str(script)], capture_output=True, text=True, env=env, timeout=60)
    assert proc.returncode == 1 and "no display" in proc.stderr
