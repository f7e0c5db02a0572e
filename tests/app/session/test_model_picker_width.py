"""The composer's model picker shows its whole choice (user pass 2026-11-27: "pass-model · |" and "pass-n" with
the inspector open, "builtin" clipped at the default window size): it gets the width its text needs, up to
MODEL_PICKER_MAX_WIDTH, and past that limit the text is elided and the whole name is in the tooltip. The real
window (pytest-qt, qasync) at its default size, the inspector opened as the user opens it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox, QStyle, QStyleOptionComboBox

from app.paths import resolve_paths
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.loopback import LoopbackServer
from tests.support.window_actions import Model, close_window, open_window
from widgets.model_picker import MODEL_PICKER_MAX_WIDTH
from widgets.theme import apply_theme


@pytest.fixture(autouse=True)
def themed(qapp):
    """The style and stylesheet ``parley`` runs with (app/session/gui.py): its controls are wider than Qt's
    defaults, which is where the row ran out of room."""
    apply_theme(QApplication.instance(), "light")


def shot(window, name: str) -> None:
    """With PARLEY_SHOTS set: the window saved as a PNG there, to look at."""
    folder = os.environ.get("PARLEY_SHOTS")
    if folder:
        window.grab().save(str(Path(folder) / f"{name}.png"))


def picker_of(window) -> QComboBox:
    picker = window.composer.findChild(QComboBox, "modelPicker")
    assert picker is not None
    return picker


def text_room(picker: QComboBox) -> int:
    """The width the style gives the picker's text (the text is cut or elided past it)."""
    option = QStyleOptionComboBox()
    picker.initStyleOption(option)
    return picker.style().subControlRect(QStyle.ComplexControl.CC_ComboBox, option,
                                         QStyle.SubControl.SC_ComboBoxEditField, picker).width()


def shows_all_of(picker: QComboBox) -> bool:
    return picker.fontMetrics().horizontalAdvance(picker.currentText()) <= text_room(picker)


@pytest.fixture
def pass_models(loopback: LoopbackServer) -> Model:
    providers = [ProviderSettings(id="pass", base_url=loopback.url + "/v1", default_model="pass-model"),
                 ProviderSettings(id="pass-n", base_url=loopback.url + "/v1", default_model="pass-model")]
    save_settings(Settings(providers=providers, default_provider="pass"), resolve_paths().settings)
    return Model(loopback)


def test_the_picker_shows_its_whole_choice_with_the_inspector_open(qtbot, qasync_loop, pass_models):
    window, session = open_window(qtbot, qasync_loop)
    try:
        picker = picker_of(window)
        qtbot.waitUntil(lambda: picker.currentText() == "pass-model · pass", timeout=3000)
        shot(window, "picker-default")
        assert shows_all_of(picker), (picker.width(), text_room(picker))
        assert window.composer.set_current_model("pass-n", "pass-model")
        qtbot.waitUntil(lambda: shows_all_of(picker), timeout=2000)  # laid out again on a later turn of the loop
        assert shows_all_of(picker), (picker.width(), text_room(picker))
        window.toggle_inspector()
        qtbot.waitUntil(window.inspector.isVisible, timeout=3000)
        tools = window.composer.tool_picker()
        qtbot.waitUntil(lambda: tools.toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly, timeout=2000)
        qtbot.wait(50)
        shot(window, "picker-inspector")
        # the chat column at its minimum (CHAT_MIN_WIDTH) with Tools and Chat icon-only: whole if it fits, else
        # elided in the middle with the whole name first in the tooltip, never cut without a word
        if shows_all_of(picker):
            assert "pass-model" not in picker.toolTip()  # shown whole: the tooltip is the picker's own
        else:
            assert picker.toolTip().splitlines()[0] == "pass-model · pass-n", picker.toolTip()
        assert window.composer.tool_picker().toolButtonStyle() == Qt.ToolButtonStyle.ToolButtonIconOnly
    finally:
        close_window(qasync_loop, session)


def test_a_name_past_the_limit_is_elided_and_whole_in_the_tooltip(qtbot, qasync_loop, loopback: LoopbackServer):
    long_model = "an-extremely-long-model-name-from-a-local-server-that-keeps-going-2026-11-27-q4_k_m"
    providers = [ProviderSettings(id="pass", base_url=loopback.url + "/v1", default_model=long_model)]
    save_settings(Settings(providers=providers, default_provider="pass"), resolve_paths().settings)
    Model(loopback)
    window, session = open_window(qtbot, qasync_loop)
    try:
        picker = picker_of(window)
        qtbot.waitUntil(lambda: picker.currentText() == f"{long_model} · pass", timeout=3000)
        shot(window, "picker-long")
        assert picker.width() <= MODEL_PICKER_MAX_WIDTH
        assert not shows_all_of(picker)
        assert picker.toolTip().splitlines() == [f"{long_model} · pass", "Provider and model for the next message"]
    finally:
        close_window(qasync_loop, session)


def test_the_built_in_models_name_shows_whole_at_the_default_size(qtbot, qasync_loop):
    """With Parley's theme the built-in name was cut by a few pixels at the default size (a QComboBox asks for
    less than its styled text needs once the row is full)."""
    from app.engine import library
    from app.engine.adapter import BUILTIN_PROVIDER

    save_settings(Settings(), resolve_paths().settings)
    if not library.builtin_usable(Settings().engine):
        pytest.skip("the built-in engine or its demo model is not installed here")
    window, session = open_window(qtbot, qasync_loop)
    try:
        picker = picker_of(window)
        qtbot.waitUntil(lambda: picker.currentText().endswith(f" · {BUILTIN_PROVIDER}"), timeout=3000)
        qtbot.waitUntil(lambda: shows_all_of(picker), timeout=2000)  # the names arrive, then the row is laid out
        shot(window, "picker-builtin")
        assert shows_all_of(picker), (picker.currentText(), picker.width(), text_room(picker))
    finally:
        close_window(qasync_loop, session)


def test_on_a_1280_px_wide_window_the_inspector_leaves_the_model_name_whole(qtbot, qasync_loop, pass_models):
    """User pass 4 (item 6 of the pass before): with the inspector open in a 1280 px window that cannot grow,
    the chat sat at its 480 px minimum and "pass-model · pass-n" was elided. The conversation list and the
    drawer now give way first (widgets/drawer_space.py)."""
    window, session = open_window(qtbot, qasync_loop)
    try:
        window.resize(1280, 800)
        picker = picker_of(window)
        qtbot.waitUntil(lambda: picker.currentText() == "pass-model · pass", timeout=3000)
        assert window.composer.set_current_model("pass-n", "pass-model")
        window.toggle_inspector()
        qtbot.waitUntil(window.inspector.isVisible, timeout=3000)
        qtbot.wait(100)  # the row is laid out again on a later turn of the loop
        shot(window, "picker-inspector-1280")
        assert window.width() == 1280
        assert shows_all_of(picker), (window.splitter.sizes(), picker.width(), text_room(picker))
        assert window.inspector.width() >= 360  # the timeline's columns still fit
    finally:
        close_window(qasync_loop, session)
