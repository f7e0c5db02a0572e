"""Settings for the MCP servers the tests run as subprocesses: the PyPI servers and tests/support's own."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from tools.mcp import McpServerSettings, RestartPolicy

REPO = Path(__file__).resolve().parents[3]
FAST_RESTARTS = RestartPolicy(first_delay_s=0.1, max_delay_s=0.2, max_attempts=3)
READY_S = 30.0  # hang guard for a server to start on a busy machine, not a speed assertion


def time_server(name: str = "time") -> McpServerSettings:
    return McpServerSettings(name=name, command=sys.executable,
                             args=["-m", "mcp_server_time", "--local-timezone", "UTC"])


def support_server(name: str = "t", *args: str) -> McpServerSettings:
    return McpServerSettings(name=name, command=sys.executable, args=["-m", "tests.support.mcp_test_server", *args],
                             cwd=str(REPO))


async def until(condition: Callable[[], bool], seconds: float = READY_S) -> None:
    """Wait for something the servers do in the background; ``seconds`` is a hang guard."""
    async with asyncio.timeout(seconds):
        for _ in itertools.count():
            if condition():
                return
            await asyncio.sleep(0.02)


@contextlib.contextmanager
def http_server(port: int = 0, *, require_header: str | None = None) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """tests/support's server on streamable HTTP in its own process; yields the process and the URL it serves."""
    extra = ["--require-header", require_header] if require_header else []
    process = subprocess.Popen([sys.executable, "-m", "tests.support.mcp_test_server", "--http", str(port), *extra],
                               cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("listening on "), f"the HTTP test server did not start: {first!r}"
        yield process, first.split()[-1]
    finally:
        process.kill()
        process.wait(READY_S)
