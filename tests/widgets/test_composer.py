"""The composer: Enter/Shift+Enter, Send becoming Stop, restoring a failed send, and the inline pickers."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from orchestration.reasoning_effort import effort_for_request
from widgets.composer import (
    MAX_INPUT_LINES,
    REASONING_EFFORTS,
    Composer,
    message_text,
)


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


def test_tools_toggle(qtbot, composer):
    toggles: list[bool] = []
    composer.tools_toggled.connect(toggles.append)
    assert composer.tools_enabled()
    qtbot.mouseClick(composer.findChild(QWidget, "toolsToggle"), Qt.MouseButton.LeftButton)
    assert not composer.tools_enabled()
    composer.set_tools_enabled(True)
    assert composer.tools_enabled()
    assert toggles == [False, True]


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
    composer.findChild(QWidget, "toolsToggle").setFocus()
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
                                           ("modelPicker", "toolsToggle", "effortPicker", "sendButton"))]
    assert all(control.accessibleName() for control in controls)
