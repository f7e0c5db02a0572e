"""Everything a run shows belongs to its conversation: the real window, a model on loopback, a real database.

One run with two reasoning phases, two searches, a fetched page, a clamp warning and a denied tool call is
watched live; a new chat then shows none of it; reopening the conversation (in the same session, and in a new
window over the same SQLite file after a restart) shows the same chat, chips, panes, banner, inspector timeline
and token counts. A second test streams into one conversation while another is on screen.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from orchestration.limits import LoopLimits
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_chunks, stream_response
from tests.support.search_wire import searxng_results
from tests.support.window_snapshot import snapshot, until
from widgets.conversation_delegate import DETAIL_ROLE
from widgets.conversation_display import EMPTY_CHAT_TEXT
from widgets.conversation_list import ANSWERING_TEXT, ID_ROLE

PAGE = ("<html><head><title>How otters hold hands</title></head><body><h1>Rafts</h1>"
        "<p>Sea otters hold hands while they sleep so that they do not drift apart.</p></body></html>")
FIRST_TOKEN_DELAY_S = 0.4  # the first model call waits this long before its first chunk: the typing indicator


def run_model(server: LoopbackServer) -> Any:
    def handle(request: Request) -> Response | None:
        if request.path == "/search":
            return Response.json(searxng_results())
        if request.path == "/page":
            return Response.body(PAGE, "text/html; charset=utf-8")
        if request.path != "/v1/chat/completions":
            return None
        answered = sum(1 for m in request.json["messages"] if m["role"] == "assistant")
        if answered == 0:  # phase 1: two searches, a hidden calculation, and one call past the per-turn limit
            chunks = stream_chunks("", reasoning="Phase one: search the web first.", calls=[
                ("s1", "web_search", {"query": "sea otters"}),
                ("s2", "web_search", {"query": "otter tools"}),
                ("c1", "calculate", {"expression": "6*7"}),
                ("s3", "web_search", {"query": "otter dens"})], usage=(100, 20))
            return Response.sse(chunks, done=True, chunk_delay=FIRST_TOKEN_DELAY_S / 2)
        if answered == 1:  # phase 2: read a page, and a file the user is asked about (and denies)
            return stream_response("", reasoning="Phase two: read the page and the notes.", calls=[
                ("f1", "web_fetch", {"url": server.url + "/page"}),
                ("r1", "read_file", {"path": "notes.txt"})], usage=(200, 30))
        return stream_response("## Otters\n\nThey **hold hands** while sleeping and crack shells with stones.\n",
                               usage=(300, 40))
    return handle


@pytest.fixture
def server():
    with LoopbackServer() as running:
        running.handler = run_model(running)
        yield running


def configure(server: LoopbackServer, workspace: Path) -> None:
    workspace.mkdir(exist_ok=True)
    (workspace / "notes.txt").write_text("otters are great\n")
    settings = Settings(providers=[ProviderSettings(id="local", preset="custom", base_url=server.url + "/v1",
                                                    default_model="test-model")], default_provider="local",
                        limits=LoopLimits(max_calls_per_turn=3), workspace_folders=[str(workspace)],
                        allow_local_addresses=True)
    settings.search.backend = "searxng"
    settings.search.base_urls = {"searxng": server.url}
    save_settings(settings, resolve_paths().settings)



def answering(window: Any) -> dict[int, bool]:
    model = window.conversations.model
    rows = [model.index(i, 0) for i in range(model.rowCount())]
    return {row.data(ID_ROLE): row.data(DETAIL_ROLE) == ANSWERING_TEXT for row in rows}


def open_window(qtbot: Any) -> tuple[Any, Any]:
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    window.show()
    window.toggle_inspector()
    return window, session


def test_live_run_and_reopened_conversation_show_the_same_state(qtbot, qasync_loop, server, tmp_path):
    configure(server, tmp_path / "work")
    window, session = open_window(qtbot)
    ended: list[Any] = []
    session.controller.run_finished.connect(ended.append)
    session.send("Tell me about otters")

    until(qasync_loop, lambda: window.typing.text() == "Waiting for the model…")  # before the first token
    until(qasync_loop, lambda: window.approval.is_asking())
    assert window.chat_view.pending_chips() == ["r1"]  # the call waiting for approval has its chip already
    assert ("read_file", "waiting for your approval") in snapshot(window)["chips"]
    assert window.typing.text() == "Waiting for your approval…"
    window.approval.deny_all.click()
    until(qasync_loop, lambda: bool(ended))
    qasync_loop.run_until_complete(asyncio.sleep(0.05))  # frame timers
    assert window.typing.text() == "" and window.chat_view.pending_chips() == []

    live = snapshot(window)
    assert live["reasoning"] == [("Phase 1", "Phase one: search the web first."),
                                 ("Phase 2 · after web_search, calculate", "Phase two: read the page and the notes.")]
    assert live["reasoning_collapsed"]  # the answer came: the pane folded to its summary
    assert live["chips"] == [("web_search", "ok"), ("web_search", "ok"), ("web_search", "not run (limit of 3 per "
                                                                                        "turn)"),
                             ("web_fetch", "ok"), ("read_file", "denied")]
    assert live["search_summary"] == "2 searches · 4 results · 1 read"
    assert live["search_entries"][0] == ("How otters hold hands", server.url + "/page", True)  # read by the model
    assert live["banner"] == ["The model asked for 4 tool calls in one turn; only the first 3 were run (limit: 3 "
                              "per turn)."]
    assert live["tokens"] == "600 in · 90 out"
    assert len(live["timeline"]) > 3 and live["inspector_runs"] == 1
    assert "hold hands" in live["chat"] and not live["running"] and live["waiting"] == ""
    conversation = session.conversation_id

    session.new_chat()  # a new chat shows none of it, and says what to do
    empty = snapshot(window)
    assert EMPTY_CHAT_TEXT.split(".")[0] in empty["chat"] and "hold hands" not in empty["chat"]
    assert empty["reasoning"] == [] and empty["search_entries"] == [] and empty["search_queries"] == ""
    assert empty["banner"] == []
    assert empty["tokens"] == "" and empty["timeline"] == [] and empty["inspector_runs"] == 0

    session.open_conversation(conversation)  # the same session: rebuilt from the database
    window.inspector.runs.setCurrentRow(0)
    assert snapshot(window) == live
    session.history.close()

    again, again_session = open_window(qtbot)  # a restart: a new window over the same SQLite file
    again_session.open_conversation(conversation)
    again.inspector.runs.setCurrentRow(0)
    assert snapshot(again) == live
    again_session.history.close()


def test_a_run_streams_into_its_own_conversation_while_another_is_shown(qtbot, qasync_loop, tmp_path):
    release = threading.Event()
    with LoopbackServer() as server:
        def handle(request: Request) -> Response | None:
            question = request.json["messages"][-1]["content"]
            if "slow" in question:  # conversation A: two pieces, then it waits for the test
                release.wait(10)
                return stream_response("Slow answer, finished.", reasoning="Thinking slowly.")
            return stream_response("Quick answer.", usage=(5, 3))
        server.handler = handle
        save_settings(Settings(providers=[ProviderSettings(id="local", base_url=server.url + "/v1",
                                                           default_model="m")], default_provider="local"),
                      resolve_paths().settings)
        window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
        qtbot.addWidget(window)
        window.show()
        ended: list[Any] = []
        session.controller.run_finished.connect(ended.append)

        session.send("first a slow one")
        a = session.conversation_id
        until(qasync_loop, lambda: window.composer.is_running())
        session.send("this must wait")  # one run per conversation: the text goes back to the composer
        assert "this must wait" in window.composer.input_widget().toPlainText()
        window.composer.input_widget().clear()

        session.new_chat()  # B, while A is still waiting for its answer
        assert not window.composer.is_running() and window.typing.text() == ""
        session.send("a quick one")
        b = session.conversation_id
        assert b != a
        until(qasync_loop, lambda: len(ended) == 1)
        qasync_loop.run_until_complete(asyncio.sleep(0.05))
        window.chat_view.flush()
        assert "Quick answer." in window.chat_view.toPlainText()
        assert "slow" not in window.chat_view.toPlainText() and window.reasoning_pane.phase_count() == 0
        assert session.controller.is_running(a) and not window.composer.is_running()
        assert answering(window) == {a: True, b: False}  # the list says which conversation is still answering

        session.open_conversation(a)  # back to A: its run is still going, shown live
        assert window.composer.is_running() and window.typing.text() == "Waiting for the model…"
        assert "first a slow one" in window.chat_view.toPlainText()
        assert "Quick answer." not in window.chat_view.toPlainText()
        session.open_conversation(b)
        release.set()  # A's answer arrives while B is on screen
        until(qasync_loop, lambda: len(ended) == 2)
        qasync_loop.run_until_complete(asyncio.sleep(0.05))
        window.chat_view.flush()
        assert "Slow answer" not in window.chat_view.toPlainText() and window.reasoning_pane.phase_count() == 0
        assert window.usage_label.text() == "5 in · 3 out"
        assert answering(window) == {a: False, b: False}
        session.open_conversation(a)
        assert "Slow answer, finished." in window.chat_view.toPlainText()
        assert window.reasoning_pane.phase_count() == 1 and not window.composer.is_running()
        session.history.close()
