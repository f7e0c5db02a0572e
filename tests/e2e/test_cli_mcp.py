"""``parley mcp`` and MCP tools in ``parley tools list`` and ``parley chat``: real processes, the real
mcp-server-time from PyPI, and a loopback model that calls it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.support.cli_process import run_parley
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_response
from tests.tools.mcp.conftest import http_server

SECRET = "test-key-not-a-real-secret"
TIME_SERVER = ["--", sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]


def settings_file() -> Path:
    return Path(os.environ["PARLEY_HOME"]) / "config" / "settings.json"


def time_model(request: Request) -> Response | None:
    """Plays a model that asks the MCP time server for the time in Tokyo, then repeats the zone it got."""
    if request.path != "/v1/chat/completions":
        return None
    results = [m for m in request.json["messages"] if m["role"] == "tool"]
    if not results:
        return stream_response("", calls=[("call_t1", "time__get_current_time", {"timezone": "Asia/Tokyo"})])
    return stream_response(f"The server said: {json.loads(results[0]['content'])['timezone']}.")


def test_add_list_remove():
    added = run_parley("mcp", "add", "time", *TIME_SERVER)
    assert added.returncode == 0, added.stderr
    assert "Added MCP server time (stdio:" in added.stdout
    saved = json.loads(settings_file().read_text())["mcp_servers"][0]
    assert saved["command"] == sys.executable and saved["args"][-2:] == ["--local-timezone", "UTC"]
    listed = run_parley("mcp", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    [row] = json.loads(listed.stdout)
    assert (row["name"], row["status"]) == ("time", "running")
    assert row["tools"] == ["time__get_current_time", "time__convert_time"]
    tools = json.loads(run_parley("tools", "list", "--json").stdout)
    assert {"name": "time__convert_time", "category": "mcp", "needs_approval": True}.items() <= next(
        t for t in tools if t["name"] == "time__convert_time").items()
    assert run_parley("mcp", "remove", "time").returncode == 0
    assert json.loads(settings_file().read_text())["mcp_servers"] == []


def test_add_refuses_bad_input_and_credential_headers():
    neither = run_parley("mcp", "add", "x")
    assert neither.returncode == 2 and "either a command after --" in neither.stderr
    header = run_parley("mcp", "add", "x", "--url", "https://mcp.example", "--header", "Authorization=Bearer t")
    assert header.returncode == 2 and "secret header" in header.stderr
    secret = run_parley("mcp", "add", "docs", "--url", "https://mcp.example/mcp", "--secret-header", "Authorization")
    assert secret.returncode == 0 and "parley keys set mcp:docs:Authorization" in secret.stdout
    assert "Bearer" not in settings_file().read_text()


def test_chat_calls_an_mcp_tool_allowed_in_settings():
    assert run_parley("mcp", "add", "time", *TIME_SERVER).returncode == 0
    settings = json.loads(settings_file().read_text())
    settings["tools"]["approval"]["time__get_current_time"] = "allow"
    settings_file().write_text(json.dumps(settings))
    with LoopbackServer(handler=time_model) as model:
        proc = run_parley("chat", "--kind", "openai", "--base-url", model.url + "/v1", "--model", "m",
                          "--api-key-env", "PARLEY_TEST_KEY", "--tools", "time__get_current_time", "--json",
                          "What time is it in Tokyo?", env={"PARLEY_TEST_KEY": SECRET})
        first = model.requests[0].json
    assert proc.returncode == 0, proc.stderr
    assert [t["function"]["name"] for t in first["tools"]] == ["time__get_current_time"]
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    result = next(e for e in events if e["type"] == "tool_result")
    assert (result["status"], result["category"]) == ("ok", "mcp")
    assert "".join(e["content"] for e in events if e["type"] == "content") == "The server said: Asia/Tokyo."


@pytest.mark.secret_service
@pytest.mark.skipif(not os.environ.get("DBUS_SESSION_BUS_ADDRESS"), reason="no D-Bus session (Secret Service)")
def test_http_server_with_a_secret_header_from_the_keyring():
    token = "Bearer test-token-not-a-real-secret-e2e"
    with http_server(require_header=f"Authorization={token}") as (_, url):
        assert run_parley("mcp", "add", "web", "--url", url, "--secret-header", "Authorization").returncode == 0
        [before] = json.loads(run_parley("mcp", "list", "--json").stdout)
        assert before["status"] == "failed"
        assert "the secret Authorization is not in the keyring (entry mcp:web:Authorization" in before["message"]
        stored = run_parley("keys", "set", "mcp:web:Authorization", stdin=token)
        assert stored.returncode == 0, stored.stderr
        try:
            listed = run_parley("mcp", "list", "--json")
        finally:
            run_parley("keys", "delete", "mcp:web:Authorization")
    [after] = json.loads(listed.stdout)
    assert (after["status"], after["message"]) == ("running", None)
    assert "web__echo" in after["tools"]
    assert "test-token" not in settings_file().read_text()
