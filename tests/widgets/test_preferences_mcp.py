"""The MCP servers tab of the preferences dialog: a real `mcp-server-time` tested from the form, validation at
the fields, secrets that reach the (in-memory) keyring and only show as stored, live statuses from a listener."""

from __future__ import annotations

import asyncio
import os
import shlex
import sys

from PySide6.QtCore import Qt

from app.secrets import SERVICE
from app.secrets.store import SecretStore
from app.session.chat_session import SETTINGS_SCHEMA, preference_keys
from app.settings import Settings
from tests.support.memory_keyring import MemoryKeyring
from tools.mcp import McpServerSettings, ServerStatus, probe_server
from widgets.preferences_dialog import PreferencesDialog
from widgets.preferences_mcp import McpHooks, StatusListener

PROBE_GUARD_S = 40.0  # hang guard for the server to start on a busy machine, not a speed assertion
FAKE_TOKEN = "test-token-not-real"


def make_dialog(qtbot, settings: Settings | None = None, hooks: McpHooks | None = None,
                keyring: MemoryKeyring | None = None) -> PreferencesDialog:
    dialog = PreferencesDialog(schema=SETTINGS_SCHEMA, settings=settings or Settings(),
                               keys=preference_keys(SecretStore(keyring or MemoryKeyring())),
                               mcp=hooks)
    qtbot.addWidget(dialog)
    return dialog


def test_add_a_stdio_server_and_test_lists_its_tools(qtbot, qasync_loop):
    dialog = make_dialog(qtbot, hooks=McpHooks(probe=probe_server))
    tab = dialog.mcp_servers
    qtbot.mouseClick(tab.add_button, Qt.MouseButton.LeftButton)
    tab.name.setText("time")
    assert not dialog.ok_button.isEnabled()  # the new server has no command yet
    tab.command.setText(shlex.join([sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]))
    tab.env.setPlainText("TZ_HINT=UTC")
    assert dialog.ok_button.isEnabled()

    qtbot.mouseClick(tab.test_button, Qt.MouseButton.LeftButton)
    assert tab.test_result.text() == "Connecting…"
    qasync_loop.run_until_complete(asyncio.wait_for(tab.test_task, PROBE_GUARD_S))
    assert tab.test_result.text() == "Connected: 2 tools: get_current_time, convert_time"

    [server] = dialog.result_settings().mcp_servers
    assert (server.name, server.command, server.args) == ("time", sys.executable,
                                                          ["-m", "mcp_server_time", "--local-timezone", "UTC"])
    assert server.env == {"TZ_HINT": "UTC"} and server.enabled


def test_a_launcher_style_command_found_on_path_lists_its_tools(qtbot, qasync_loop, monkeypatch):
    """Like `uvx mcp-server-time`: a bare program name with arguments, found through PATH (here the console
    script pip installed beside this Python)."""
    bin_dir = os.path.dirname(sys.executable)
    monkeypatch.setenv("PATH", bin_dir + os.pathsep + os.environ.get("PATH", ""))
    dialog = make_dialog(qtbot, hooks=McpHooks(probe=probe_server))
    tab = dialog.mcp_servers
    tab.add()
    tab.name.setText("time")
    tab.command.setText("mcp-server-time --local-timezone UTC")
    tab.test_server()
    qasync_loop.run_until_complete(asyncio.wait_for(tab.test_task, PROBE_GUARD_S))
    assert tab.test_result.text() == "Connected: 2 tools: get_current_time, convert_time"
    [server] = dialog.result_settings().mcp_servers
    assert (server.command, server.args) == ("mcp-server-time", ["--local-timezone", "UTC"])


def test_test_shows_the_servers_error(qtbot, qasync_loop):
    dialog = make_dialog(qtbot, hooks=McpHooks(probe=probe_server))
    tab = dialog.mcp_servers
    tab.add()
    tab.command.setText(f"{shlex.quote(sys.executable)} -c 'import sys; sys.exit(\"no such server\")'")
    tab.test_server()
    qasync_loop.run_until_complete(asyncio.wait_for(tab.test_task, PROBE_GUARD_S))
    assert tab.test_result.text().startswith("Failed:")
    assert "no such server" in tab.test_result.text()  # the server's standard error is quoted


def test_validation_errors_are_shown_at_their_fields(qtbot):
    existing = McpServerSettings(name="time", command="mcp-server-time")
    dialog = make_dialog(qtbot, Settings(mcp_servers=[existing]))
    tab = dialog.mcp_servers
    tab.add()
    tab.name.setText("time")
    assert tab.errors["name"].text() == "another server is already called time"
    tab.name.setText("bad name!")
    assert "letters, digits" in tab.errors["name"].text()
    tab.name.setText("fetch")
    assert tab.errors["name"].isHidden()
    assert tab.errors["command"].text() == "a stdio server needs a command"
    tab.command.setText("uvx 'unclosed")
    assert tab.errors["command"].text().startswith("cannot split the command line")
    tab.command.setText("uvx mcp-server-fetch")
    tab.env.setPlainText("not a line")
    assert tab.errors["env"].text() == "line 1 is not “NAME=value” with a valid variable name"
    tab.env.setPlainText("TOKEN=x")
    tab.secret_env.setText("TOKEN")
    assert tab.errors["secret_env"].text() == "TOKEN is also a plain variable"
    tab.env.clear()
    assert tab.errors["secret_env"].isHidden() and dialog.ok_button.isEnabled()

    tab.transport.setCurrentIndex(tab.transport.findData("http"))
    assert tab.errors["url"].text() == "give the server's URL, starting with http:// or https://"
    assert "MCP server fetch: url:" in dialog.summary.text() and not dialog.ok_button.isEnabled()
    tab.url.setText("ftp://example.org/mcp")
    assert tab.errors["url"].text() == "give the server's URL, starting with http:// or https://"
    tab.url.setText("https://example.org/mcp")
    tab.headers.setPlainText("no colon here")
    assert tab.errors["headers"].text() == "line 1 is not “Name: value”"
    tab.headers.setPlainText("X-Team: blue")
    assert dialog.ok_button.isEnabled()
    servers = dialog.result_settings().mcp_servers
    assert [(s.name, s.transport, s.url, s.headers) for s in servers][1] == (
        "fetch", "http", "https://example.org/mcp", {"X-Team": "blue"})


def test_secret_values_go_to_the_keyring_and_only_their_presence_shows(qtbot):
    keyring = MemoryKeyring()
    dialog = make_dialog(qtbot, keyring=keyring)
    tab = dialog.mcp_servers
    tab.add()
    tab.name.setText("gh")
    tab.command.setText("github-mcp-server stdio")
    tab.secret_env.setText("GITHUB_TOKEN")
    assert tab.secret_name.currentText() == "GITHUB_TOKEN"
    assert tab.secret_key.status.text() == "No key stored."
    tab.secret_key.field.setText(FAKE_TOKEN)
    tab.secret_key.store()
    assert keyring.get_password("parley", "mcp:gh:GITHUB_TOKEN") == FAKE_TOKEN
    assert tab.secret_key.status.text() == "A key is stored in the keyring."
    assert tab.secret_key.field.text() == ""
    [server] = dialog.result_settings().mcp_servers
    assert server.secret_env == ["GITHUB_TOKEN"] and server.env == {}
    assert FAKE_TOKEN not in dialog.result_settings().model_dump_json()


def test_statuses_are_listed_and_refreshed_by_the_listener(qtbot):
    listeners: list[StatusListener] = []
    removed: list[StatusListener] = []
    hooks = McpHooks(statuses=lambda: [ServerStatus("time", "stdio", "starting")],
                     add_listener=listeners.append, remove_listener=removed.append)
    dialog = make_dialog(qtbot, Settings(mcp_servers=[McpServerSettings(name="time", command="mcp-server-time")]),
                         hooks)
    tab = dialog.mcp_servers
    assert tab.list.item(0).text() == "time — starting"
    assert tab.status.text() == "starting"
    [listener] = listeners
    listener(ServerStatus("time", "stdio", "running", None, ("get_current_time", "convert_time")))
    assert tab.list.item(0).text() == "time — running"
    assert tab.status.text() == "running, 2 tools"
    listener(ServerStatus("time", "stdio", "failed", "it exited"))
    assert tab.status.text() == "failed: it exited"

    tab.enabled.setChecked(False)
    assert dialog.result_settings().mcp_servers[0].enabled is False
    qtbot.mouseClick(tab.remove_button, Qt.MouseButton.LeftButton)
    assert dialog.result_settings().mcp_servers == []
    dialog.reject()
    assert removed == [listener]  # the closed dialog no longer listens


def test_reconnect_asks_the_app_for_a_saved_server_only(qtbot):
    listeners: list[StatusListener] = []
    asked: list[str] = []
    hooks = McpHooks(statuses=lambda: [ServerStatus("web", "http", "starting")], add_listener=listeners.append,
                     reconnect=asked.append)
    dialog = make_dialog(qtbot, Settings(mcp_servers=[
        McpServerSettings(name="web", transport="http", url="http://127.0.0.1:9/mcp")]), hooks)
    tab = dialog.mcp_servers
    assert not tab.reconnect_button.isEnabled()  # still starting
    [listener] = listeners
    listener(ServerStatus("web", "http", "failed", "the secret Authorization is not in the keyring"))
    assert tab.reconnect_button.isEnabled()
    qtbot.mouseClick(tab.reconnect_button, Qt.MouseButton.LeftButton)
    assert asked == ["web"]
    assert not tab.reconnect_button.isEnabled()  # until the server reports again
    listener(ServerStatus("web", "http", "running", None, ("echo",)))
    assert tab.reconnect_button.isEnabled()
    tab.add()  # a server not applied yet has nothing to reconnect
    assert not tab.reconnect_button.isEnabled()
    tab.list.setCurrentRow(0)
    assert tab.reconnect_button.isEnabled()


def test_renaming_a_server_is_reported_and_its_secrets_stay_put_until_ok(qtbot):
    keyring = MemoryKeyring()
    dialog = make_dialog(qtbot, Settings(mcp_servers=[McpServerSettings(
        name="web", transport="http", url="http://127.0.0.1:9/mcp", secret_headers=["Authorization"])]),
        McpHooks(statuses=lambda: [ServerStatus("web", "http", "running", None, ("echo",))]), keyring)
    tab = dialog.mcp_servers
    tab.name.setText("site")
    assert tab.renames() == {"web": "site"}
    assert tab.list.item(0).text() == "site — running"  # still the running server's state
    assert tab.status.text() == "running, 1 tool"
    tab.secret_key.field.setText(FAKE_TOKEN)
    tab.secret_key.store()
    assert list(keyring.entries) == [(SERVICE, "mcp:web:Authorization")]  # moved by the app on OK
    assert [s.name for s in dialog.result_settings().mcp_servers] == ["site"]
    tab.add()
    tab.name.setText("site")
    assert tab.errors["name"].text() == "another server is already called site"  # the new name is taken
    assert not dialog.ok_button.isEnabled()


def test_a_name_still_in_use_by_a_renamed_server_is_refused(qtbot):
    dialog = make_dialog(qtbot, Settings(mcp_servers=[McpServerSettings(name="a", command="x"),
                                                      McpServerSettings(name="b", command="y")]))
    tab = dialog.mcp_servers
    tab.name.setText("c")  # a -> c is fine
    tab.list.setCurrentRow(1)
    tab.name.setText("a")  # b -> a would take the name a still has until OK
    assert tab.errors["name"].text() == ("another server is called a until OK; rename that one first, press OK, "
                                         "then use this name")
    assert not dialog.ok_button.isEnabled()
