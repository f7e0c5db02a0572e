"""``parley chat`` with an MCP server that stops answering: the call times out with a message that says so, the
process exits after the run, Ctrl+C always ends it, and the server never outlives Parley (not even a SIGKILL of
it). Real processes: parley, tests/support/mcp_test_server.py over stdio, a loopback model."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli_process import REPO, parley_command, run_parley
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_response

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="child processes are read from /proc")

EXIT_GUARD_S = 60  # hang guard for a whole chat on a busy machine, not a speed assertion
GONE_WITHIN_S = 5  # how soon after parley ends its MCP server must be gone


def freezing_model(marker: Path):
    """Plays a model that calls the server's ``freeze`` tool (the whole server stops answering; ``marker`` is
    created once it has), then answers."""

    def handle(request: Request) -> Response | None:
        if request.path != "/v1/chat/completions":
            return None
        if not [m for m in request.json["messages"] if m["role"] == "tool"]:
            return stream_response("", calls=[("call_f", "t__freeze", {"marker": str(marker)})])
        return stream_response("The server did not answer.")

    return handle


def configure(call_timeout: float) -> None:
    settings = {
        "mcp_servers": [{"name": "t", "command": sys.executable, "args": ["-m", "tests.support.mcp_test_server"],
                         "cwd": str(REPO), "call_timeout": call_timeout}],
        "tools": {"approval": {"t__freeze": "allow"}},
    }
    path = Path(os.environ["PARLEY_HOME"]) / "config" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(settings))


def start_chat(model: LoopbackServer) -> subprocess.Popen[str]:
    return subprocess.Popen([*parley_command(), "chat", "--kind", "openai", "--base-url", model.url + "/v1",
                             "--model", "m", "--api-key-env", "PARLEY_TEST_KEY", "--tools", "t__freeze", "--json",
                             "Freeze, please"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                            env={**os.environ, "PARLEY_TEST_KEY": "test-key-not-a-real-secret"})


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def wait_gone(pid: int, seconds: float = GONE_WITHIN_S) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return not alive(pid)


def read_until(process: subprocess.Popen[str], event_type: str) -> list[dict]:
    """Events printed until one of ``event_type`` (inclusive)."""
    assert process.stdout is not None
    events: list[dict] = []
    deadline = time.monotonic() + EXIT_GUARD_S
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        events.append(json.loads(line))
        if events[-1]["type"] == event_type:
            return events
    raise AssertionError(f"no {event_type} event; got {[e['type'] for e in events]}")


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + EXIT_GUARD_S
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.05)


@pytest.fixture
def frozen(tmp_path: Path) -> Path:
    return tmp_path / "frozen"


@pytest.fixture
def chat(frozen: Path):
    """Starts ``parley chat`` and returns once its MCP server is frozen in the call: (process, server pid)."""
    started: list[subprocess.Popen[str]] = []
    servers: list[int] = []

    def start(model: LoopbackServer, call_timeout: float) -> tuple[subprocess.Popen[str], int]:
        configure(call_timeout)
        process = start_chat(model)
        started.append(process)
        read_until(process, "tool_executing")
        wait_for(frozen)
        servers.append(int(frozen.read_text()))
        assert children(process.pid) == [servers[-1]]
        return process, servers[-1]

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()
    for pid in servers:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_chat_exits_after_done_when_the_server_stops_answering(chat, frozen):
    with LoopbackServer(handler=freezing_model(frozen)) as model:
        process, server = chat(model, call_timeout=2)
        out, err = process.communicate(timeout=EXIT_GUARD_S)
    assert process.returncode == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    [result] = [e for e in events if e["type"] == "tool_result"]
    assert result["result"] == ("MCP server 't' did not answer tool 'freeze' within 2 s (the server's "
                                "call_timeout); the call was cancelled.")
    assert events[-1]["type"] == "done" and events[-1]["finish_reason"] == "stop"
    assert wait_gone(server), "the MCP server outlived parley"


def test_ctrl_c_stops_the_run_and_exits(chat, frozen):
    with LoopbackServer(handler=freezing_model(frozen)) as model:
        process, server = chat(model, call_timeout=600)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=EXIT_GUARD_S)
    assert process.returncode == 130, err
    assert "parley: stopping; press Ctrl+C again to quit at once" in err
    last = json.loads(out.splitlines()[-1])
    assert (last["type"], last["finish_reason"]) == ("done", "cancelled")
    assert wait_gone(server), "the MCP server outlived parley"


def test_a_second_ctrl_c_quits_at_once_and_kills_the_server(chat, frozen):
    with LoopbackServer(handler=freezing_model(frozen)) as model:
        process, server = chat(model, call_timeout=600)
        process.send_signal(signal.SIGINT)
        assert process.stderr is not None
        first = process.stderr.readline()  # the second press must come after the first was seen (signals merge)
        assert first == "parley: stopping; press Ctrl+C again to quit at once\n"
        process.send_signal(signal.SIGINT)  # while the frozen server is being stopped (it takes seconds)
        _, err = process.communicate(timeout=EXIT_GUARD_S)
    assert process.returncode == 130, err
    assert "parley: quitting at once" in err
    assert wait_gone(server), "the MCP server outlived parley"


def test_the_server_dies_with_a_killed_parley(chat, frozen):
    with LoopbackServer(handler=freezing_model(frozen)) as model:
        process, server = chat(model, call_timeout=600)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=EXIT_GUARD_S)
    assert wait_gone(server), "the MCP server outlived a SIGKILL of parley"


def test_mcp_list_says_what_a_server_stuck_starting_waits_for():
    server = [sys.executable, "-m", "tests.support.mcp_test_server", "--start-delay", "60"]
    added = run_parley("mcp", "add", "slow", "--cwd", str(REPO), "--", *server)
    assert added.returncode == 0, added.stderr
    listed = run_parley("mcp", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    [row] = json.loads(listed.stdout)
    assert row["status"] == "starting"
    assert re.fullmatch(r"waiting for its answer to initialize since \d\d:\d\d:\d\d "
                        rf"\(\d+ s; command: {re.escape(' '.join(server))}\); "
                        r"gives up after 20 s", row["message"]), row["message"]
