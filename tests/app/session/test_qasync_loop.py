"""A real MCP server (mcp-server-time, from PyPI) kept connected on the loop Parley drives with ``run_until_complete``
(the screenshot scripts, the window's close after Qt's loop returned, the tests' fixture): the server's heartbeat
often wakes its connection's task in the same turn as a ``run_until_complete`` ends. On a plain qasync loop that
step ran with no running loop; the connection died with ``RuntimeError: no running event loop`` and closing it
logged "MCP server 'time' ended with RuntimeError('no running event loop')". On QuitSafeEventLoop it stays up,
closes without a warning, and its process is gone afterwards."""

from __future__ import annotations

import asyncio
import logging
import os

import pytest

import tools.mcp.connection as connection
from app.session.qasync_loop import QuitSafeEventLoop
from tests.tools.mcp.conftest import READY_S, time_server
from tools.mcp import McpManager

HEARTBEAT_S = 0.003  # the heartbeat as often as a turn of the loop, so its step meets each loop end (not a timing)
TURNS = 300  # loop runs of one short sleep each: the old loop lost the connection within the first few dozen


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:  # a zombie is gone, only not reaped yet
        return stat.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_an_mcp_connection_survives_loop_ends_and_closes_without_a_warning(qapp, monkeypatch, caplog):
    monkeypatch.setattr(connection, "HEARTBEAT_INTERVAL_S", HEARTBEAT_S)
    loop = QuitSafeEventLoop(qapp)
    asyncio.set_event_loop(loop)
    manager = McpManager([time_server()])
    try:
        async def connect() -> None:
            manager.start()
            await manager.wait_ready(READY_S)

        loop.run_until_complete(connect())
        assert [s.state for s in manager.statuses()] == ["running"], manager.statuses()
        [server] = manager._connections.values()
        pid = server.server_pid()
        assert pid is not None and alive(pid)
        with caplog.at_level(logging.WARNING):
            for _ in range(TURNS):
                loop.run_until_complete(asyncio.sleep(HEARTBEAT_S))
            [status] = manager.statuses()
            assert (status.state, status.restarts, status.message) == ("running", 0, None)
            loop.run_until_complete(manager.aclose())
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
        assert not alive(pid)
    finally:
        if not loop.is_closed():
            loop.run_until_complete(manager.aclose())
            loop.close()
        asyncio.set_event_loop(None)


def test_the_loop_is_not_left_as_the_running_loop(qapp):
    loop = QuitSafeEventLoop(qapp)
    try:
        assert loop.run_until_complete(asyncio.sleep(0, result="done")) == "done"
        with pytest.raises(RuntimeError, match="no running event loop"):
            asyncio.get_running_loop()
    finally:
        loop.close()
