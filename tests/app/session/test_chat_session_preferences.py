"""Preferences from the real window: Ctrl+, opens the dialog, OK saves the file and applies at once, Cancel
discards."""

from __future__ import annotations

import asyncio
import shlex
import sys

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import attach_session, build_window
from app.settings import ProviderSettings, Settings, load_settings, save_settings
from tests.support.loopback import Response
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_response
from tests.tools.mcp.conftest import http_server
from tools.mcp import McpServerSettings
from widgets.main_window import MainWindow
from widgets.preferences_dialog import PreferencesDialog
from widgets.theme import apply_theme

FAKE_KEY = "test-key-not-real"
MCP_READY_S = 40.0  # hang guard for the MCP server to start on a busy machine, not a speed assertion


def open_window(qtbot, keyring: MemoryKeyring):
    window, session = build_window(secrets=SecretStore(keyring), discover=False)
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)  # window shortcuts need an active window
    return window, session


def test_ok_saves_and_the_composer_offers_the_new_model(qtbot, qasync_loop, loopback, parley_home):
    loopback.add("GET", "/v1/models", Response.json({"data": [{"id": "tiny-1"}, {"id": "tiny-2"}]}))
    keyring = MemoryKeyring()
    window, session = open_window(qtbot, keyring)
    assert window.centre_stack.currentWidget() is window.welcome
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    dialog = session.preferences
    assert isinstance(dialog, PreferencesDialog) and dialog.isVisible()
    assert "web_search" in dialog.tool_checks  # the registry's tools are listed

    tab = dialog.providers
    tab.add("custom")
    tab.id.setText("local")
    tab.base_url.setText(loopback.url + "/v1")
    tab.key.field.setText(FAKE_KEY)
    tab.key.store()
    tab.test_connection()
    qasync_loop.run_until_complete(asyncio.wait_for(tab.test_task, 5))
    assert loopback.requests[0].header("Authorization") == f"Bearer {FAKE_KEY}"  # read back from the keyring
    tab.model.setEditText("tiny-2")
    dialog.font_size.setValue(15)
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    assert not dialog.isVisible()
    assert window.composer.current_model() == ("local", "tiny-2")
    assert window.centre_stack.currentWidget() is not window.welcome
    assert window.chat_view.font().pointSize() == 15
    saved = load_settings(resolve_paths().settings)
    assert saved.problem is None
    assert [(p.id, p.default_model) for p in saved.settings.providers] == [("local", "tiny-2")]
    assert saved.settings.default_provider == "local" and saved.settings.ui.font_size == 15
    assert FAKE_KEY not in resolve_paths().settings.read_text()
    assert keyring.entries[("parley", "provider:local")] == FAKE_KEY
    session.history.close()


def test_cancel_discards(qtbot, qasync_loop, parley_home):
    paths = resolve_paths()
    save_settings(Settings(providers=[ProviderSettings(id="keep", base_url="http://127.0.0.1:9/v1",
                                                       default_model="m")], default_provider="keep"),
                  paths.settings)
    before = paths.settings.read_text()
    window, session = open_window(qtbot, MemoryKeyring())
    dialog = session.open_preferences()
    dialog.providers.remove_current()
    dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
    dialog.reject()
    assert paths.settings.read_text() == before
    assert [p.id for p in session.settings.providers] == ["keep"] and session.settings.ui.theme == "system"
    assert window.composer.current_model() == ("keep", "m")
    session.history.close()


def test_theme_applies_through_the_controller(qtbot, qasync_loop, parley_home):
    theme = apply_theme(QApplication.instance(), "light")
    _window, session = open_window(qtbot, MemoryKeyring())
    session.theme = theme
    dialog = session.open_preferences()
    dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
    dialog.buttons.accepted.emit()
    assert theme.mode == "dark" and theme.scheme == "dark"
    theme.set_mode("light")
    session.history.close()


def test_ok_with_a_new_mcp_server_reconnects_and_the_status_bar_reports_it(qtbot, qasync_loop, parley_home):
    async def open_on_the_loop():  # the session starts MCP servers on the running loop, as in the app
        return open_window(qtbot, MemoryKeyring())

    window, session = qasync_loop.run_until_complete(open_on_the_loop())
    assert window.mcp_label.text() == ""  # no server configured
    dialog = session.open_preferences()
    tab = dialog.mcp_servers
    tab.add()
    tab.name.setText("time")
    tab.command.setText(shlex.join([sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]))
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()

    async def until_running() -> None:
        async with asyncio.timeout(MCP_READY_S):
            while window.mcp_label.text() != "MCP: 1/1 running":  # noqa: ASYNC110 (a Qt label, no event)
                await asyncio.sleep(0.02)

    qasync_loop.run_until_complete(until_running())
    assert [s.tools for s in session.mcp_statuses()] == [("get_current_time", "convert_time")]
    saved = load_settings(resolve_paths().settings).settings
    assert [(s.name, s.command) for s in saved.mcp_servers] == [("time", sys.executable)]

    reopened = session.open_preferences()  # the tab shows the live status of the applied server
    assert reopened.mcp_servers.list.item(0).text() == "time — running"
    reopened.reject()
    qasync_loop.run_until_complete(session.mcp.aclose())
    session.history.close()


def test_a_secret_stored_in_the_tab_and_reconnect_bring_a_failed_server_up(qtbot, qasync_loop, parley_home):
    token = "Bearer test-token-not-real-prefs"
    with http_server(require_header=f"Authorization={token}") as (_, url):
        save_settings(Settings(mcp_servers=[McpServerSettings(name="web", transport="http", url=url,
                                                              secret_headers=["Authorization"])]),
                      resolve_paths().settings)
        keyring = MemoryKeyring()

        async def open_on_the_loop():  # no nested Qt loop here: it would hold back the tasks started on this one
            return build_window(secrets=SecretStore(keyring), discover=False)

        window, session = qasync_loop.run_until_complete(open_on_the_loop())
        qtbot.addWidget(window)
        window.show()

        async def until_state(state: str) -> None:
            async with asyncio.timeout(MCP_READY_S):
                while session.mcp_statuses()[0].state != state:  # noqa: ASYNC110 (no event to wait on)
                    await asyncio.sleep(0.02)

        try:
            qasync_loop.run_until_complete(until_state("failed"))
            assert window.mcp_label.text() == "MCP: 0/1 running"
            assert window.inspector.mcp_servers.text().startswith("MCP web: failed (the secret Authorization is")
            tab = session.open_preferences().mcp_servers
            assert tab.status.text().startswith("failed: the secret Authorization is not in the keyring")
            assert tab.secret_name.currentText() == "Authorization"
            tab.secret_key.field.setText(token)
            tab.secret_key.store()
            qtbot.mouseClick(tab.reconnect_button, Qt.MouseButton.LeftButton)
            qasync_loop.run_until_complete(until_state("running"))
            assert window.mcp_label.text() == "MCP: 1/1 running"
            assert window.inspector.mcp_servers.text() == "MCP web: running, 6 tools"
            assert tab.status.text() == "running, 6 tools"
            assert list(keyring.entries.values()) == [token]
        finally:
            qasync_loop.run_until_complete(session.mcp.aclose())
            if session.preferences is not None:
                session.preferences.reject()
            session.history.close()


def test_renaming_a_server_moves_its_secret_and_tool_settings(qtbot, qasync_loop, parley_home):
    token = "Bearer test-token-not-real-rename"
    with http_server(require_header=f"Authorization={token}") as (_, url):
        settings = Settings(mcp_servers=[McpServerSettings(name="web", transport="http", url=url,
                                                           secret_headers=["Authorization"])])
        settings.tools.approval = {"web__echo": "allow"}
        settings.tools.enabled = {"web__hang": False}
        save_settings(settings, resolve_paths().settings)
        keyring = MemoryKeyring()
        SecretStore(keyring).store("mcp:web:Authorization", token)

        async def open_on_the_loop():
            return build_window(secrets=SecretStore(keyring), discover=False)

        window, session = qasync_loop.run_until_complete(open_on_the_loop())
        qtbot.addWidget(window)

        async def until_label(text: str) -> None:
            async with asyncio.timeout(MCP_READY_S):
                while window.mcp_label.text() != text:  # noqa: ASYNC110 (a Qt label, no event)
                    await asyncio.sleep(0.02)

        try:
            qasync_loop.run_until_complete(until_label("MCP: 1/1 running"))
            dialog = session.open_preferences()
            dialog.mcp_servers.name.setText("site")
            qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
            assert list(keyring.entries.values()) == [token]
            assert [name for _, name in keyring.entries] == ["mcp:site:Authorization"]
            saved = load_settings(resolve_paths().settings).settings
            assert [s.name for s in saved.mcp_servers] == ["site"]
            assert (saved.tools.approval, saved.tools.enabled) == ({"site__echo": "allow"}, {"site__hang": False})
            async def until_site_runs() -> None:  # reconnected with the moved secret
                async with asyncio.timeout(MCP_READY_S):
                    while [(s.name, s.state) for s in session.mcp_statuses()] != [("site", "running")]:  # noqa: ASYNC110
                        await asyncio.sleep(0.02)

            qasync_loop.run_until_complete(until_site_runs())
            assert window.mcp_label.text() == "MCP: 1/1 running"
        finally:
            qasync_loop.run_until_complete(session.aclose())
            session.history.close()


def test_renaming_a_provider_moves_its_key(qtbot, qasync_loop, loopback, parley_home):
    loopback.always("POST", "/v1/chat/completions", stream_response("Hello."))
    save_settings(Settings(providers=[ProviderSettings(id="local", base_url=loopback.url + "/v1", default_model="m")],
                           default_provider="local"), resolve_paths().settings)
    keyring = MemoryKeyring()
    SecretStore(keyring).store("provider:local", FAKE_KEY)
    window, session = open_window(qtbot, keyring)
    finished = []
    session.controller.run_finished.connect(finished.append)

    def send_and_wait(text: str) -> None:
        count = len(finished)
        session.send(text)

        async def until_finished() -> None:
            async with asyncio.timeout(10):
                while len(finished) == count:  # noqa: ASYNC110 (a Qt signal fills the list)
                    await asyncio.sleep(0.01)

        qasync_loop.run_until_complete(until_finished())

    send_and_wait("Hi")
    dialog = session.open_preferences()
    dialog.providers.id.setText("home")
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert [name for _, name in keyring.entries] == ["provider:home"]
    saved = load_settings(resolve_paths().settings).settings
    assert ([p.id for p in saved.providers], saved.default_provider) == (["home"], "home")
    assert window.composer.current_model() == ("home", "m")
    send_and_wait("Again")
    assert [r.header("Authorization") for r in loopback.requests] == [f"Bearer {FAKE_KEY}"] * 2
    session.history.close()


def test_font_size_after_a_restart_equals_the_one_after_preferences_ok(qtbot, qasync_loop, parley_home):
    theme = apply_theme(QApplication.instance(), "light")
    settings = Settings()
    settings.ui.font_size, settings.ui.theme = 16, "dark"
    save_settings(settings, resolve_paths().settings)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()  # as at startup: the window paints first, the session attaches a moment later
    qtbot.waitExposed(window)
    session = attach_session(window, secrets=SecretStore(MemoryKeyring()), discover=False, theme=theme)
    restarted = (theme.scheme, window.chat_view.font().pointSize(), window.chat_view.document().defaultFont())

    dialog = session.open_preferences()
    dialog.buttons.accepted.emit()  # OK with the same settings
    after_ok = (theme.scheme, window.chat_view.font().pointSize(), window.chat_view.document().defaultFont())
    assert restarted == after_ok == ("dark", 16, after_ok[2])
    assert after_ok[2].pointSize() == 16
    theme.set_mode("light")
    session.history.close()
