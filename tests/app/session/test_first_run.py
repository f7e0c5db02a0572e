"""First run in the real window: a send without a provider keeps the welcome and its "Add a provider…" button,
and the Add-a-provider dialog opened from it can list models and test against a server (loopback HTTP)."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import Qt

from app.paths import resolve_paths
from app.settings import load_settings
from tests.support.engine_off import save_engine_off
from tests.support.loopback import Response
from tests.support.session_window import shown_session_window
from widgets.add_provider_dialog import AddProviderDialog


@pytest.fixture(autouse=True)
def no_engine(parley_home):
    """Nothing can answer: no provider, and the built-in engine turned off (tests/app/engine covers it on)."""
    save_engine_off()


def test_a_send_without_a_provider_keeps_the_welcome_and_its_button(qtbot, qasync_loop, parley_home):
    window, session = shown_session_window(qtbot)
    session.send("Hello?")
    assert window.centre_stack.currentWidget() is window.welcome
    assert window.welcome.add_button.isVisible()
    assert window.welcome.notice_text().startswith("No provider is set up. Add one with “Add a provider…” below")
    assert window.composer.input_widget().toPlainText().startswith("Hello?")
    session.history.close()


def test_the_welcome_says_no_provider_is_set_up_once(qtbot, qasync_loop, parley_home):
    window, session = shown_session_window(qtbot)
    assert "No provider is set up yet." in window.welcome.text.text()
    session.send("Hello?")
    shown = window.welcome.text.text() + window.welcome.notice_text()
    assert shown.count("No provider is set up") == 1  # the red notice says it; the intro no longer repeats it
    window.welcome.set_servers([])  # the search for local servers ends after the notice: still once
    assert (window.welcome.text.text() + window.welcome.notice_text()).count("No provider is set up") == 1
    window.welcome.show_notice("")
    assert "No provider is set up yet." in window.welcome.text.text()
    session.history.close()


def test_the_welcome_button_opens_a_dialog_that_lists_models_and_adds_the_provider(qtbot, qasync_loop, loopback,
                                                                                   parley_home):
    loopback.add("GET", "/v1/models", Response.json({"data": [{"id": "tiny-1"}, {"id": "tiny-2"}]}))
    window, session = shown_session_window(qtbot)
    session.send("Hello?")
    qtbot.mouseClick(window.welcome.add_button, Qt.MouseButton.LeftButton)
    dialog = window.findChild(AddProviderDialog)
    assert dialog is not None and dialog.isVisible()
    dialog.preset.setCurrentIndex(dialog.preset.findData("custom"))
    dialog.name.setText("local")
    dialog.base_url.setText(loopback.url + "/v1")
    qtbot.mouseClick(dialog.list_button, Qt.MouseButton.LeftButton)
    qasync_loop.run_until_complete(asyncio.wait_for(dialog.task, 5))
    assert dialog.model.currentText() == "tiny-1"
    dialog.model.setCurrentIndex(1)
    qtbot.mouseClick(dialog.buttons.button(dialog.buttons.StandardButton.Ok), Qt.MouseButton.LeftButton)

    assert window.composer.current_model() == ("local", "tiny-2")
    assert window.welcome.notice_text() == ""
    saved = load_settings(resolve_paths().settings).settings
    assert [(p.id, p.base_url, p.default_model) for p in saved.providers] == [("local", loopback.url + "/v1",
                                                                              "tiny-2")]
    session.history.close()
