"""Stopping a stdio server never hangs: a connection torn down under a call to a frozen server (what the old
heartbeat did) left the SDK's shutdown waiting on the server for ever, so `parley chat` never exited. Run under
``asyncio.run`` in a child process, where that hang shows (and where a hang can be cut off from outside)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
HANG_GUARD_S = 60

SCENARIO = """
import asyncio, contextlib, json, os, sys
from pathlib import Path
from tools.mcp import McpManager, connection
from tests.tools.mcp.conftest import support_server

connection.STOP_GRACE_S = 1.0
marker = Path(sys.argv[1])

async def old_heartbeat(self, live):  # pings even while a call waits, and drops the connection when unanswered
    while True:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(0.5):
                await live.lost.wait()
        if live.lost.is_set():
            return "the server closed the connection"
        try:
            async with asyncio.timeout(1.0):
                await live.session.send_ping()
        except TimeoutError:
            return "the server did not answer a ping"

connection.ServerConnection._watch = old_heartbeat

def alive(pid):
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False

async def main():
    manager = McpManager([support_server("t")])
    manager.start()
    await manager.wait_ready(30)
    [conn] = manager._connections.values()
    with contextlib.suppress(Exception):
        await asyncio.wait_for(conn.call("freeze", {"marker": str(marker)}), 30)
    server = int(marker.read_text())
    await asyncio.sleep(1)
    supervisor = conn._task
    try:
        async with asyncio.timeout(20):
            await manager.aclose()
        stopped = True
    except TimeoutError:
        stopped = False
    print(json.dumps({"stopped": stopped, "ended": supervisor.done(), "server_alive": alive(server)}), flush=True)
    if alive(server):
        os.kill(server, 9)
    os._exit(0)

asyncio.run(main())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_stop_ends_a_connection_torn_down_under_a_call_to_a_frozen_server(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", SCENARIO, str(tmp_path / "frozen")], capture_output=True,
                          text=True, timeout=HANG_GUARD_S, cwd=REPO)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {"stopped": True, "ended": True, "server_alive": False}
