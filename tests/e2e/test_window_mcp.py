"""The real window with an MCP server configured: the server connects in the background, the status bar says
so, and a run calls its tool, allowed in settings or approved by the user in the approval panel, after which
the inspector shows the call, its result and the server's state."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from PySide6.QtCore import Qt

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_response
from tools.mcp import McpServerSettings

READY_S = 30.0  # hang guard for the server to start on a busy machine


def time_model(request: Request) -> Response | None:
    if request.path != "/v1/chat/completions":
        return None
    results = [m for m in request.json["messages"] if m["role"] == "tool"]
    if not results:
        return stream_response("", calls=[("call_t1", "time__get_current_time", {"timezone": "Asia/Tokyo"})])
    return stream_response(f"Zone: {json.loads(results[0]['content'])['timezone']}.")


@pytest.fixture
def server():
    with LoopbackServer(handler=time_model) as running:
        yield running


def save_configuration(server: LoopbackServer, *, allow: bool) -> None:
    settings = Settings(
        providers=[ProviderSettings(id="local", base_url=server.url + "/v1", default_model="m")],
        default_provider="local",
        mcp_servers=[McpServerSettings(name="time", command=sys.executable,
                                       args=["-m", "mcp_server_time", "--local-timezone", "UTC"])])
    if allow:
        settings.tools.approval = {"time__get_current_time": "allow"}
    save_settings(settings, resolve_paths().settings)


def open_with_mcp_running(qtbot, qasync_loop):
    async def open_window():  # the session starts MCP servers on the running loop, as in the app
        return build_window(secrets=SecretStore(MemoryKeyring()), discover=False)

    window, session = qasync_loop.run_until_complete(open_window())
    qtbot.addWidget(window)
    window.show()

    async def until_running() -> None:
        async with asyncio.timeout(READY_S):
            while window.mcp_label.text() != "MCP: 1/1 running":  # noqa: ASYNC110 (a Qt label, no event)
                await asyncio.sleep(0.02)

    qasync_loop.run_until_complete(until_running())
    return window, session


def test_window_connects_mcp_and_a_run_calls_its_tool(qtbot, qasync_loop, server, parley_home):
    save_configuration(server, allow=True)
    window, session = open_with_mcp_running(qtbot, qasync_loop)
    assert [s.tools for s in session.mcp_statuses()] == [("get_current_time", "convert_time")]
    events = []
    done = qasync_loop.create_future()

    def collect(event) -> None:
        events.append(event)
        if event.type == "done" and not done.done():
            done.set_result(event)

    session.controller.event_emitted.connect(collect)
    qtbot.keyClicks(window.composer.input_widget(), "Time in Tokyo?")
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Return)
    assert qasync_loop.run_until_complete(asyncio.wait_for(done, READY_S)).finish_reason == "stop"
    result = next(e for e in events if e.type == "tool_result")
    assert (result.name, result.status, result.category) == ("time__get_current_time", "ok", "mcp")
    assert "Zone: Asia/Tokyo." in "".join(e.content for e in events if e.type == "content")
    qasync_loop.run_until_complete(session.mcp.aclose())
    assert window.mcp_label.text() == "MCP: 0/1 running"


def test_an_mcp_call_is_approved_in_the_window_and_read_in_the_inspector(qtbot, qasync_loop, server, parley_home):
    save_configuration(server, allow=False)
    window, session = open_with_mcp_running(qtbot, qasync_loop)
    events = []
    session.controller.event_emitted.connect(events.append)
    qtbot.keyClicks(window.composer.input_widget(), "Time in Tokyo?")
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Return)

    async def until(condition) -> None:
        async with asyncio.timeout(READY_S):
            while not condition():  # noqa: ASYNC110 (widgets and a Qt signal, no event to await)
                await asyncio.sleep(0.02)

    qasync_loop.run_until_complete(until(lambda: window.approval.cards))
    [card] = window.approval.cards
    assert card.call.name == "time__get_current_time"
    assert not [e for e in events if e.type == "tool_executing"]  # nothing runs before the user answers
    qtbot.mouseClick(card.allow, Qt.MouseButton.LeftButton)
    qasync_loop.run_until_complete(until(lambda: any(e.type == "done" for e in events)))
    result = next(e for e in events if e.type == "tool_result")
    assert (result.status, result.category) == ("ok", "mcp")

    window.toggle_inspector()
    window.inspector.flush()
    rows = window.inspector.timeline_rows()
    assert [r[1:3] for r in rows if r[0] == "1"] == [("time__get_current_time", "ok")]
    assert window.inspector.mcp_servers.text() == "MCP time: running, 2 tools"
    tool_row = window.inspector.timeline.topLevelItem(0).child(0)
    window.inspector.timeline.setCurrentItem(tool_row)
    shown = json.loads(window.inspector.detail.toPlainText())
    assert shown["arguments"] == {"timezone": "Asia/Tokyo"}
    assert json.loads(shown["result"])["timezone"] == "Asia/Tokyo"
    assert [c["status"] for c in shown["transitions"]][-1] == "ok"
    qasync_loop.run_until_complete(session.aclose())
    session.history.close()
