"""MCP tools in the real loop: a scripted model calls real MCP servers over stdio."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import AsyncIterator

import pytest

from orchestration.events import RunEvent
from orchestration.limits import LoopLimits
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.scripted import ScriptedModel, Step
from orchestration.tool_turn import ApprovalRequest, Decision
from tests.support.loopback import LoopbackServer, Response
from tests.tools.mcp.conftest import FAST_RESTARTS, READY_S, support_server, time_server, until
from tools.mcp import McpManager, McpServerSettings, connection, probe_server
from tools.mcp.content import MAX_RESULT_CHARS
from tools.registry import ToolRegistry


async def allow_all(requests: list[ApprovalRequest]) -> dict[str, Decision]:
    return {r.call_id: "allow" for r in requests}


@pytest.fixture
async def manager() -> AsyncIterator[McpManager]:
    made = McpManager([time_server(), support_server()], policy=FAST_RESTARTS)
    made.start()
    await made.wait_ready(READY_S)
    yield made
    await made.aclose()


def registry_of(manager: McpManager) -> ToolRegistry:
    registry = ToolRegistry()
    manager.register_into(registry)
    return registry


async def run(manager: McpManager, steps: list[Step], tools: list[str], *, limits: LoopLimits | None = None,
              approver=allow_all) -> tuple[list[RunEvent], ScriptedModel, object]:
    events: list[RunEvent] = []
    model = ScriptedModel(steps)
    loop = RunLoop(model, registry_of(manager), events.append, limits=limits, approver=approver)
    result = await loop.run(RunRequest(model="m", messages=[UserMessage(content="hi")], tool_names=tools))
    model.assert_exhausted()
    return events, model, result


def tool_results(events: list[RunEvent]) -> list:
    return [e for e in events if e.type == "tool_result"]


async def test_time_server_result_reaches_the_model(manager):
    def sees_time(request) -> None:
        result = request.messages[-1]
        assert result.status == "ok"
        assert json.loads(result.content)["timezone"] == "Europe/Paris"

    events, model, result = await run(manager, [
        Step(calls=[("time__get_current_time", {"timezone": "Europe/Paris"})]),
        Step(text="It is late in Paris.", check=sees_time),
    ], ["time__get_current_time"])
    assert result.answer == "It is late in Paris."
    [executing] = [e for e in events if e.type == "tool_executing"]
    assert executing.category == "mcp"
    assert "time__get_current_time" in [t.name for t in model.requests[0].tools]


async def test_mcp_tools_need_approval_by_default(manager):
    events, _, _ = await run(manager, [
        Step(calls=[("time__get_current_time", {"timezone": "UTC"})]),
        Step(text="ok"),
    ], ["time__get_current_time"], approver=None)
    assert tool_results(events)[0].status == "denied"


async def test_a_server_error_is_a_result_the_model_sees(manager):
    events, _, _ = await run(manager, [
        Step(calls=[("time__get_current_time", {"timezone": "Nowhere/Atlantis"})]),
        Step(text="sorry"),
    ], ["time__get_current_time"])
    [result] = tool_results(events)
    assert result.status == "error" and "Nowhere/Atlantis" in result.result


async def test_missing_required_argument_is_refused_before_the_call(manager):
    events, _, _ = await run(manager, [Step(calls=[("t__echo", {})]), Step(text="ok")], ["t__echo"])
    [result] = tool_results(events)
    assert result.status == "error" and "missing required argument(s): text" in result.result


async def test_crash_mid_call_says_not_running_then_the_server_restarts(manager):
    events, _, _ = await run(manager, [Step(calls=[("t__crash", {})]), Step(text="it crashed")], ["t__crash"])
    [result] = tool_results(events)
    assert result.status == "error" and "MCP server 't' is not running" in result.result
    await until(lambda: (manager.statuses()[1].state, manager.statuses()[1].restarts) == ("running", 1))
    events, _, _ = await run(manager, [Step(calls=[("t__echo", {"text": "back"})]), Step(text="ok")], ["t__echo"])
    assert tool_results(events)[0].result == "back"


async def test_hanging_tool_times_out_with_the_servers_call_timeout_and_the_server_stays_usable():
    made = McpManager([support_server("t").model_copy(update={"call_timeout": 0.5})], policy=FAST_RESTARTS)
    made.start()
    try:
        await made.wait_ready(READY_S)
        events, _, _ = await run(made, [
            Step(calls=[("t__hang", {})]),
            Step(calls=[("t__echo", {"text": "still here"})]),
            Step(text="done"),
        ], ["t__hang", "t__echo"], limits=LoopLimits(tool_timeout=0.1))  # MCP tools use call_timeout instead
    finally:
        await made.aclose()
    hang, echo = tool_results(events)
    assert (hang.status, hang.result) == ("error", "MCP server 't' did not answer tool 'hang' within 0.5 s (the "
                                          "server's call_timeout); the call was cancelled.")
    assert echo.status == "ok" and echo.result == "still here"


async def test_a_server_that_stops_answering_is_reported_as_a_timeout_not_a_closed_connection(monkeypatch):
    """The server's event loop is blocked, so pings go unanswered too: the heartbeat used to tear the connection
    down under the waiting call, which then read "closed the connection"."""
    monkeypatch.setattr(connection, "HEARTBEAT_INTERVAL_S", 0.2)
    monkeypatch.setattr(connection, "PING_TIMEOUT_S", 0.3)
    made = McpManager([support_server("t").model_copy(update={"call_timeout": 3})], policy=FAST_RESTARTS)
    made.start()
    try:
        await made.wait_ready(READY_S)
        events, _, _ = await run(made, [Step(calls=[("t__freeze", {})]), Step(text="gave up")], ["t__freeze"])
        [frozen] = tool_results(events)
        assert frozen.result == ("MCP server 't' did not answer tool 'freeze' within 3 s (the server's call_timeout); "
                                 "the call was cancelled.")
        # with no call waiting, the unanswered pings get the server restarted
        await until(lambda: made.statuses()[0].restarts >= 1)
    finally:
        await made.aclose()


async def test_stop_cancels_a_hanging_call(manager):
    events: list[RunEvent] = []
    model = ScriptedModel([Step(calls=[("t__hang", {})]), Step(text="never")])
    loop = RunLoop(model, registry_of(manager), events.append, limits=LoopLimits(tool_timeout=60),
                   approver=allow_all)
    task = asyncio.create_task(loop.run(RunRequest(model="m", messages=[UserMessage(content="hi")],
                                                   tool_names=["t__hang"])))
    await until(lambda: any(e.type == "tool_executing" for e in events))
    task.cancel()
    result = await asyncio.wait_for(task, 5)
    assert result.finish_reason == "cancelled"
    assert len(model.steps) == 1  # the model was not called again
    assert next(s for s in manager.statuses() if s.name == "t").state == "running"


async def test_huge_result_is_cut_by_the_loops_budget(manager):
    events, _, _ = await run(manager, [Step(calls=[("t__huge", {"size": 200_000})]), Step(text="ok")], ["t__huge"],
                             limits=LoopLimits(tool_output_chars=1_000))
    [result] = tool_results(events)
    assert result.truncated
    assert result.result.endswith("[truncated: showing 1000 of 200000 characters]")


async def test_images_and_resources_become_text(manager):
    events, _, _ = await run(manager, [Step(calls=[("t__picture", {})]), Step(text="ok")], ["t__picture"])
    text = tool_results(events)[0].result
    assert "[image returned: image/png, 70 bytes" in text
    assert "[resource file:///notes.txt]\nthe notes" in text
    assert "[resource link report <file:///report.pdf>]" in text


async def test_slow_server_does_not_hold_back_the_others():
    slow = McpManager([support_server("slow", "--start-delay", "30"), time_server()], policy=FAST_RESTARTS)
    seen: list[tuple[str, str]] = []
    slow.add_listener(lambda s: seen.append((s.name, s.state)))
    slow.start()
    try:
        await until(lambda: ("time", "running") in seen)
        states = {s.name: s.state for s in slow.statuses()}
        assert states == {"slow": "starting", "time": "running"}
        assert [t.name for t in slow.tools()] == ["time__get_current_time", "time__convert_time"]
    finally:
        await slow.aclose()
    assert {s.name: s.state for s in slow.statuses()} == {"slow": "stopped", "time": "stopped"}


async def test_fetch_server_reads_a_loopback_page(loopback: LoopbackServer):
    loopback.add("GET", "/page", Response.body(
        "<html><head><title>T</title></head><body><article><h1>Parley MCP</h1><p>The fetch server read this "
        "paragraph from a loopback page.</p></article></body></html>", "text/html"))
    fetch_args = ["-m", "mcp_server_fetch", "--ignore-robots-txt", "--allow-private-ips"]
    fetch = McpManager([McpServerSettings(name="fetch", command=sys.executable, args=fetch_args)],
                       policy=FAST_RESTARTS)
    fetch.start()
    try:
        await fetch.wait_ready(READY_S)
        assert "fetch__fetch" in [t.name for t in fetch.tools()]
        events, _, _ = await run(fetch, [Step(calls=[("fetch__fetch", {"url": f"{loopback.url}/page"})]),
                                         Step(text="ok")], ["fetch__fetch"])
    finally:
        await fetch.aclose()
    [result] = tool_results(events)
    assert result.status == "ok", result.result
    assert "fetch server read this paragraph" in result.result


async def test_probe_lists_a_servers_tools_or_says_why_it_failed():
    ok = await probe_server(time_server(), seconds=READY_S)
    assert (ok.state, ok.tools) == ("running", ("get_current_time", "convert_time"))
    missing = await probe_server(McpServerSettings(name="gone", command="/nonexistent/mcp-server"), seconds=READY_S)
    assert missing.state == "failed"
    assert missing.message.startswith("the command was not found (/nonexistent/mcp-server)")
    uvx = await probe_server(McpServerSettings(name="u", command="/nonexistent/bin/uvx", args=["mcp-server-time"]),
                             seconds=READY_S)
    assert uvx.message.startswith("the command was not found (/nonexistent/bin/uvx); uvx comes with uv (https://")


async def test_a_result_over_the_size_limit_is_reported_as_too_large(manager):
    events, _, _ = await run(manager, [Step(calls=[("t__huge", {"size": MAX_RESULT_CHARS + 1})]), Step(text="ok")],
                             ["t__huge"])
    [result] = tool_results(events)
    assert (result.status, result.truncated) == ("error", False)
    assert result.result.startswith("MCP server 't' returned a result of 1,000,001 characters for tool 'huge'; "
                                    "results over 1,000,000 characters (MAX_RESULT_CHARS) are refused as too large.")


async def test_tools_over_the_limit_are_reported():
    made = McpManager([support_server("many", "--many-tools", "300")], policy=FAST_RESTARTS)
    made.start()
    try:
        await made.wait_ready(READY_S)
        [status] = made.statuses()
    finally:
        await made.aclose()
    assert status.state == "running" and len(status.tools) == connection.MAX_LISTED_TOOLS == 200
    assert status.message == ("server 'many' offered 306 tools; 200 are used (limit MAX_LISTED_TOOLS = 200, in the "
                              "order the server listed them)")


async def test_a_server_stuck_starting_says_what_it_waits_for():
    slow = support_server("slow", "--start-delay", "60")
    made = McpManager([slow], policy=FAST_RESTARTS)
    made.start()
    try:
        await made.wait_ready(1.5)
        [status] = made.statuses()
    finally:
        await made.aclose()
    assert status.state == "starting"
    command = " ".join([slow.command or "", *slow.args])
    assert re.fullmatch(r"waiting for its answer to initialize since \d\d:\d\d:\d\d "
                        rf"\(\d+ s; command: {re.escape(command)}\); "
                        r"gives up after 20 s", status.message or ""), status.message

