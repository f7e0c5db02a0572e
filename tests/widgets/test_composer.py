"""The composer: Enter/Shift+Enter, Send becoming Stop, restoring a failed send, and the inline pickers."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from widgets.chat_settings_popover import ChatOptions, ControlSupport
from widgets.composer import (
    MAX_INPUT_LINES,
    REASONING_EFFORTS,
    Composer,
    effort_for_request,
    message_text,
)
from widgets.tool_picker import ToolOption


@pytest.fixture
def composer(qtbot) -> Composer:
    widget = Composer()
    qtbot.addWidget(widget)
    widget.resize(640, 160)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def type_text(qtbot, composer: Composer, text: str) -> None:
    qtbot.keyClicks(composer.input_widget(), text)


def test_enter_sends_the_text_and_clears_the_input(qtbot, composer):
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    type_text(qtbot, composer, "Hello there")
    qtbot.keyClick(composer.input_widget(), Qt.Key.Key_Return)
    assert sent == ["Hello there"]
    assert composer.text() == ""


def test_keypad_enter_sends_too(qtbot, composer):
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    type_text(qtbot, composer, "hi")
    qtbot.keyClick(composer.input_widget(), Qt.Key.Key_Enter, Qt.KeyboardModifier.KeypadModifier)
    assert sent == ["hi"]


def test_shift_enter_inserts_a_newline(qtbot, composer):
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    type_text(qtbot, composer, "line one")
    qtbot.keyClick(composer.input_widget(), Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    type_text(qtbot, composer, "line two")
    assert sent == []
    assert composer.text() == "line one\nline two"
    qtbot.keyClick(composer.input_widget(), Qt.Key.Key_Return)
    assert sent == ["line one\nline two"]


@pytest.mark.parametrize("blank", ["", "   ", "\n\n", " \t \n "])
def test_blank_text_is_not_sent(qtbot, composer, blank):
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    composer.input_widget().setPlainText(blank)
    qtbot.keyClick(composer.input_widget(), Qt.Key.Key_Return)
    qtbot.mouseClick(composer.findChild(QWidget, "sendButton"), Qt.MouseButton.LeftButton)
    assert sent == []


def test_sent_text_drops_surrounding_blank_lines_but_keeps_indentation():
    assert message_text("\n  \n    code()\n  more\n\n  ") == "    code()\n  more"


def test_send_button_sends_and_becomes_stop_while_running(qtbot, composer):
    button = composer.findChild(QWidget, "sendButton")
    sent: list[str] = []
    stops: list[bool] = []
    composer.send_requested.connect(sent.append)
    composer.stop_requested.connect(lambda: stops.append(True))
    type_text(qtbot, composer, "question")
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert sent == ["question"]
    assert button.text() == "Send"

    composer.set_running(True)
    assert button.text() == "Stop"
    assert button.accessibleName() == "Stop the run"
    assert button.property("running") is True
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert stops == [True]
    assert sent == ["question"]

    composer.set_running(False)
    assert button.text() == "Send"
    assert button.accessibleName() == "Send message"


def test_enter_does_not_send_while_a_run_is_active_and_the_text_stays(qtbot, composer):
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    composer.set_running(True)
    type_text(qtbot, composer, "next question")
    qtbot.keyClick(composer.input_widget(), Qt.Key.Key_Return)
    assert sent == []
    assert composer.text() == "next question"
    composer.set_running(False)
    qtbot.keyClick(composer.input_widget(), Qt.Key.Key_Return)
    assert sent == ["next question"]


def test_restore_text_puts_a_failed_send_back(qtbot, composer):
    sent: list[str] = []
    composer.send_requested.connect(sent.append)
    type_text(qtbot, composer, "my long message")
    qtbot.keyClick(composer.input_widget(), Qt.Key.Key_Return)
    assert composer.text() == ""
    composer.restore_text(sent[0])
    assert composer.text() == "my long message"


def test_restore_text_keeps_what_was_typed_since(qtbot, composer):
    type_text(qtbot, composer, "typed meanwhile")
    composer.restore_text("the failed message")
    assert composer.text() == "the failed message\n\ntyped meanwhile"


def test_model_picker_lists_choices_and_keeps_the_current_one(qtbot, composer):
    changes: list[tuple[str, str]] = []
    composer.model_changed.connect(lambda provider, model: changes.append((provider, model)))
    assert composer.current_model() is None
    composer.set_models([("openai", "gpt-4o-mini"), ("ollama", "llama3.1")])
    assert composer.current_model() == ("openai", "gpt-4o-mini")
    assert composer.set_current_model("ollama", "llama3.1")
    assert composer.current_model() == ("ollama", "llama3.1")
    assert not composer.set_current_model("ollama", "missing")
    composer.set_models([("groq", "llama-3.3"), ("ollama", "llama3.1")])
    assert composer.current_model() == ("ollama", "llama3.1")
    assert changes == [("openai", "gpt-4o-mini"), ("ollama", "llama3.1")]
    composer.set_models([])
    assert composer.current_model() is None
    assert not composer.findChild(QWidget, "modelPicker").isEnabled()


# A popup raises itself and grabs the keyboard, which the offscreen platform says it cannot do.
POPUP_WARNINGS = "This plugin does not support (raise|grabbing the keyboard)"


@pytest.mark.qt_log_ignore(POPUP_WARNINGS)
def test_tool_picker_offers_each_tool_and_reports_the_pick(qtbot, composer):
    changes: list[None] = []
    composer.chat_settings_changed.connect(lambda: changes.append(None))
    composer.set_tool_options([ToolOption("calculate", "Built-in"), ToolOption("web_search", "Web"),
                               ToolOption("time__now", "MCP: time")])
    picker = composer.findChild(QWidget, "toolPicker")
    assert composer.selected_tools() is None and picker.text() == "Tools" and picker.isEnabled()
    qtbot.mouseClick(picker, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(picker.popup.isVisible, timeout=1000)
    tree = picker.popup.tree
    assert [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())] == ["Built-in", "Web", "MCP: time"]
    tree.topLevelItem(1).child(0).setCheckState(0, Qt.CheckState.Unchecked)  # as a click on its box does
    assert composer.selected_tools() == ("calculate", "time__now") and picker.text() == "Tools 2/3"
    qtbot.mouseClick(picker.popup.none_button, Qt.MouseButton.LeftButton)
    assert composer.selected_tools() == ()
    composer.set_selected_tools(None)
    assert composer.selected_tools() is None
    assert len(changes) == 2
    picker.popup.hide()


def test_a_control_the_provider_cannot_take_is_disabled_with_the_reason(qtbot, composer):
    composer.set_tool_options([ToolOption("calculate", "Built-in")])
    composer.set_control_support(ControlSupport(temperature="no temperature for o3", temperature_max=1.0),
                                 reasoning_effort="Custom has no reasoning-effort setting", tools="no tools here")
    effort = composer.findChild(QWidget, "effortPicker")
    assert not effort.isEnabled() and "Custom has no reasoning-effort setting" in effort.toolTip()
    picker = composer.findChild(QWidget, "toolPicker")
    assert not picker.isEnabled() and picker.toolTip() == "no tools here"
    popover = composer.chat_settings_button().popover
    assert not popover.temperature.isEnabled()
    assert "no temperature for o3" in popover.temperature.check.toolTip()
    assert popover.output_limit.isEnabled() and popover.temperature.spin.maximum() == 1.0
    composer.set_chat_options(ChatOptions("be brief", temperature=0.5, max_output_tokens=300))
    assert composer.chat_options() == ChatOptions("be brief", None, 300)  # a disabled control is not sent
    composer.set_control_support(ControlSupport(), reasoning_effort=None)
    assert effort.isEnabled() and popover.temperature.isEnabled() and picker.isEnabled()
    assert composer.chat_options() == ChatOptions("be brief", 0.5, 300)


@pytest.mark.qt_log_ignore(POPUP_WARNINGS)
def test_chat_settings_popover_reports_what_the_user_sets(qtbot, composer):
    changes: list[None] = []
    composer.chat_settings_changed.connect(lambda: changes.append(None))
    button = composer.chat_settings_button()
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    popover = button.popover
    qtbot.waitUntil(popover.isVisible, timeout=1000)
    qtbot.keyClicks(popover.system_prompt, "Answer in French.")
    popover.temperature.check.setChecked(True)
    popover.temperature.spin.setValue(0.3)
    assert composer.chat_options() == ChatOptions("Answer in French.", 0.3, None)
    assert "temperature 0.3" in button.toolTip() and changes
    popover.hide()


def test_reasoning_effort_picker(qtbot, composer):
    changes: list[str] = []
    composer.reasoning_effort_changed.connect(changes.append)
    assert composer.reasoning_effort() == "off"
    composer.set_reasoning_effort("high")
    assert composer.reasoning_effort() == "high"
    assert changes == ["high"]
    with pytest.raises(ValueError, match="reasoning effort must be one of"):
        composer.set_reasoning_effort("extreme")
    assert [effort_for_request(effort) for effort in REASONING_EFFORTS] == [None, "low", "medium", "high"]


def test_focus_input(qtbot, composer):
    composer.findChild(QWidget, "effortPicker").setFocus()
    composer.focus_input()
    qtbot.waitUntil(lambda: composer.input_widget().hasFocus(), timeout=1000)


def test_input_grows_with_its_text_up_to_a_limit(qtbot, composer):
    field = composer.input_widget()
    start = field.height()
    field.setPlainText("\n".join(["line"] * 5))
    grown = field.height()
    assert grown > start
    field.setPlainText("\n".join(["line"] * (MAX_INPUT_LINES * 3)))
    capped = field.height()
    field.setPlainText("\n".join(["line"] * (MAX_INPUT_LINES * 6)))
    assert field.height() == capped > grown


def test_every_control_has_an_accessible_name(qtbot, composer):
    controls = [composer.input_widget(), *(composer.findChild(QWidget, name) for name in
                                           ("modelPicker", "toolPicker", "effortPicker", "chatSettingsButton",
                                            "sendButton"))]
    assert all(control.accessibleName() for control in controls)
