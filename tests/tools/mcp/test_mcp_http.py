"""MCP over streamable HTTP: tests/support's server run by the SDK under uvicorn in its own process, reached on
loopback with a secret header from the keyring; refusals, a server that goes away and Stop."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest

from orchestration.events import RunEvent
from orchestration.limits import LoopLimits
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.scripted import ScriptedModel, Step
from tests.tools.mcp.conftest import READY_S, http_server, until
from tests.tools.mcp.test_mcp_in_loop import allow_all, registry_of, run, tool_results
from tools.mcp import McpManager, McpServerSettings, RestartPolicy, probe_server, secret_entry

TOKEN = "Bearer test-token-not-a-real-secret"
PATIENT_RESTARTS = RestartPolicy(first_delay_s=0.1, max_delay_s=0.3, max_attempts=100)


@pytest.fixture
def guarded() -> Iterator[str]:
    with http_server(require_header=f"Authorization={TOKEN}") as (_, url):
        yield url


def web_server(url: str) -> McpServerSettings:
    return McpServerSettings(name="web", transport="http", url=url, secret_headers=["Authorization"])


def keyring_with(value: str | None) -> dict[str, str]:
    return {} if value is None else {secret_entry("web", "Authorization"): value}


async def started(servers: list[McpServerSettings], secrets: dict[str, str],
                  policy: RestartPolicy = PATIENT_RESTARTS) -> McpManager:
    manager = McpManager(servers, secrets.get, policy=policy)
    manager.start()
    await manager.wait_ready(READY_S)
    return manager


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def test_tools_listed_and_called_with_the_secret_header(guarded):
    manager = await started([web_server(guarded)], keyring_with(TOKEN))
    try:
        [status] = manager.statuses()
        assert (status.state, status.transport) == ("running", "http")
        assert [t.name for t in manager.tools()] == ["web__echo", "web__crash", "web__hang", "web__freeze", "web__huge",
                                                     "web__picture"]

        def sees_echo(request) -> None:
            assert request.messages[-1].content == "over http over http"

        events, _, result = await run(manager, [Step(calls=[("web__echo", {"text": "over http", "times": 2})]),
                                                Step(text="done", check=sees_echo)], ["web__echo"])
        assert result.answer == "done"
        assert tool_results(events)[0].status == "ok"
    finally:
        await manager.aclose()


async def test_refused_credentials_fail_at_once_and_reconnect_works_after_the_fix(guarded):
    secrets = keyring_with("Bearer wrong")
    manager = await started([web_server(guarded)], secrets)
    try:
        [status] = manager.statuses()
        assert (status.state, status.restarts) == ("failed", 0)  # not restarted: the same token would fail again
        assert status.message.startswith("the server answered HTTP 401 Unauthorized: it refused the credentials; "
                                         "check the secret header Authorization (keyring entry mcp:web:Authorization)")
        assert "Bearer" not in status.message  # the header value is never quoted
        secrets.update(keyring_with(TOKEN))
        await manager.reconnect("web")
        await until(lambda: manager.statuses()[0].state == "running")
        assert manager.statuses()[0].message is None
    finally:
        await manager.aclose()


async def test_a_missing_secret_is_named_and_not_retried(guarded):
    manager = await started([web_server(guarded)], keyring_with(None))
    try:
        [status] = manager.statuses()
        assert (status.state, status.restarts) == ("failed", 0)
        assert "the secret Authorization is not in the keyring (entry mcp:web:Authorization" in status.message
    finally:
        await manager.aclose()


async def test_a_server_that_goes_away_is_not_running_then_reconnected_when_it_returns():
    port = free_port()
    with http_server(port) as (process, url):
        manager = await started([McpServerSettings(name="web", transport="http", url=url)], {})
        assert manager.statuses()[0].state == "running"
        process.kill()
        process.wait(READY_S)
        try:
            events, _, _ = await run(manager, [Step(calls=[("web__echo", {"text": "x"})]), Step(text="down")],
                                     ["web__echo"])
            [result] = tool_results(events)
            assert result.status == "error" and "MCP server 'web' is not running" in result.result
            await until(lambda: manager.statuses()[0].state == "restarting")
            assert "could not connect to " + url in manager.statuses()[0].message
            with http_server(port):
                await until(lambda: manager.statuses()[0].state == "running")
                assert manager.statuses()[0].restarts >= 1
                events, _, _ = await run(manager, [Step(calls=[("web__echo", {"text": "back"})]), Step(text="ok")],
                                         ["web__echo"])
                assert tool_results(events)[0].result == "back"
        finally:
            await manager.aclose()


async def test_stop_cancels_a_hanging_http_call_and_the_server_stays_usable():
    with http_server() as (_, url):
        manager = await started([McpServerSettings(name="web", transport="http", url=url)], {})
        try:
            events: list[RunEvent] = []
            model = ScriptedModel([Step(calls=[("web__hang", {})]), Step(text="never")])
            loop = RunLoop(model, registry_of(manager), events.append, limits=LoopLimits(tool_timeout=60),
                           approver=allow_all)
            task = asyncio.create_task(loop.run(RunRequest(model="m", messages=[UserMessage(content="hi")],
                                                           tool_names=["web__hang"])))
            await until(lambda: any(e.type == "tool_executing" for e in events))
            task.cancel()
            result = await asyncio.wait_for(task, 5)
            assert result.finish_reason == "cancelled"
            events, _, _ = await run(manager, [Step(calls=[("web__echo", {"text": "still"})]), Step(text="ok")],
                                     ["web__echo"])
            assert tool_results(events)[0].result == "still"
        finally:
            await manager.aclose()


async def test_probe_of_a_closed_port_says_it_could_not_connect():
    url = f"http://127.0.0.1:{free_port()}/mcp"
    status = await probe_server(McpServerSettings(name="gone", transport="http", url=url), seconds=READY_S)
    assert status.state == "failed"
    assert status.message.startswith(f"could not connect to {url} (")


async def test_a_wrong_path_is_reported_with_its_http_status():
    with http_server() as (_, url):
        status = await probe_server(McpServerSettings(name="web", transport="http", url=url + "-wrong"),
                                    seconds=READY_S)
    assert status.state == "failed"
    assert status.message.startswith("the server answered HTTP 404 Not Found")
