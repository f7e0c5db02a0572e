"""``parley chat`` says so when an MCP server set up in the settings did not start: its tools are missing from
the chat, and before they went missing without a word. Real processes, a loopback model server."""

from __future__ import annotations

import sys

from tests.support.cli_process import run_parley
from tests.support.loopback import LoopbackServer
from tests.support.openai_wire import stream_response


def test_a_server_whose_command_is_missing_is_named_and_the_chat_goes_on(tmp_path):
    missing = tmp_path / "no-such-mcp-server"
    assert run_parley("mcp", "add", "files", "--", str(missing)).returncode == 0
    with LoopbackServer() as server:
        server.always("POST", "/v1/chat/completions", stream_response("still answered"))
        chat = run_parley("chat", "--no-save", "--base-url", server.url + "/v1", "--model", "m", "hello")
        offered = [tool["function"]["name"] for tool in server.requests[0].json.get("tools", [])]
    assert chat.returncode == 0, chat.stderr
    assert "still answered" in chat.stdout
    assert not any(name.startswith("files") for name in offered), offered
    assert f"MCP server files is not available (the command was not found ({missing}))" in chat.stderr, chat.stderr
    assert "its tools are not in this chat" in chat.stderr and "restarting in" not in chat.stderr


def test_mcp_list_shows_a_missing_command_as_failed_without_a_restart_it_will_not_get(tmp_path):
    missing = tmp_path / "no-such-mcp-server"
    assert run_parley("mcp", "add", "files", "--", str(missing)).returncode == 0
    listed = run_parley("mcp", "list")
    assert listed.returncode == 0, listed.stderr
    assert f"files  stdio  failed  {missing}" in listed.stdout, listed.stdout
    assert f"the command was not found ({missing})" in listed.stdout and "restarting" not in listed.stdout


def test_mcp_add_warns_about_a_command_that_is_not_there_and_keeps_the_server(tmp_path):
    missing = tmp_path / "no-such-mcp-server"
    added = run_parley("mcp", "add", "files", "--", str(missing), "--root", "/tmp")
    assert added.returncode == 0, added.stderr
    assert f"warning: {missing} was not found (not on PATH, not a file)" in added.stderr, added.stderr
    assert "files" in run_parley("mcp", "list").stdout
    on_path = run_parley("mcp", "add", "python", "--", sys.executable, "-c", "pass")
    assert on_path.returncode == 0 and "warning" not in on_path.stderr, on_path.stderr
