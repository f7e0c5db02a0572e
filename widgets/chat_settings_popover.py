"""The composer's chat settings: the system prompt, temperature and output-token limit of this chat.

A button in the composer opens a popover with the three controls. Temperature and the output limit are off
(the provider's default) until their check box is ticked. A control the current provider or model cannot take
is disabled and its tooltip says why (``ControlSupport``, filled in by the wiring from the provider's
capabilities), so nothing the user sets is silently left out of the request. The popover only shows and reports
plain values (``ChatOptions``); the wiring keeps them per conversation.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from widgets.icons import icon

DEFAULT_TEMPERATURE = 0.7  # shown when the temperature box is first ticked
DEFAULT_OUTPUT_TOKENS = 4096  # shown when the output-limit box is first ticked
MAX_OUTPUT_TOKENS = 1_000_000  # the most the spin box offers (orchestration/providers/chat_controls.py)
SYSTEM_PROMPT_LINES = 5
POPOVER_WIDTH = 420


@dataclass(frozen=True)
class ChatOptions:
    system_prompt: str = ""
    temperature: float | None = None  # None: the provider's default
    max_output_tokens: int | None = None  # None: the provider's default


@dataclass(frozen=True)
class ControlSupport:
    """Per control: None when the provider and model take it, else why they do not."""

    temperature: str | None = None
    max_output_tokens: str | None = None
    temperature_max: float = 2.0


class _SwitchedValue(QWidget):
    """A check box that turns a spin box on: unticked means "the provider's default"."""

    def __init__(self, label: str, spin: QSpinBox | QDoubleSpinBox, parent: QWidget) -> None:
        super().__init__(parent)
        self.check = QCheckBox(label, self)
        self.spin = spin
        spin.setParent(self)
        spin.setEnabled(False)
        self.check.toggled.connect(spin.setEnabled)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.check)
        row.addStretch(1)
        row.addWidget(spin)

    def set_problem(self, problem: str | None, tooltip: str) -> None:
        self.setEnabled(problem is None)
        shown = f"Not available: {problem}" if problem else tooltip
        for widget in (self, self.check, self.spin):
            widget.setToolTip(shown)


class ChatSettingsPopover(QFrame):
    options_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("chatSettingsPopover")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        title = QLabel("Chat settings", self)
        title.setObjectName("popoverTitle")
        self.system_prompt = QPlainTextEdit(self)
        self.system_prompt.setObjectName("systemPromptEdit")
        self.system_prompt.setAccessibleName("System prompt")
        self.system_prompt.setPlaceholderText("System prompt for this chat (none)")
        self.system_prompt.setFixedHeight(self.system_prompt.fontMetrics().lineSpacing() * SYSTEM_PROMPT_LINES + 12)
        self.system_prompt.textChanged.connect(self.options_changed)

        temperature = QDoubleSpinBox()
        temperature.setObjectName("temperatureSpin")
        temperature.setAccessibleName("Temperature")
        temperature.setDecimals(2)
        temperature.setSingleStep(0.1)
        temperature.setRange(0.0, 2.0)
        temperature.setValue(DEFAULT_TEMPERATURE)
        self.temperature = _SwitchedValue("Temperature", temperature, self)
        tokens = QSpinBox()
        tokens.setObjectName("outputTokensSpin")
        tokens.setAccessibleName("Output-token limit")
        tokens.setRange(1, MAX_OUTPUT_TOKENS)
        tokens.setSingleStep(256)
        tokens.setGroupSeparatorShown(True)
        tokens.setValue(DEFAULT_OUTPUT_TOKENS)
        tokens.setSuffix(" tokens")
        self.output_limit = _SwitchedValue("Output limit", tokens, self)
        for switched in (self.temperature, self.output_limit):
            switched.check.toggled.connect(self.options_changed)
        temperature.valueChanged.connect(self.options_changed)
        tokens.valueChanged.connect(self.options_changed)

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(self.temperature)
        form.addRow(self.output_limit)
        hint = QLabel("Unticked: the provider's default. Kept with this conversation; new chats start from "
                      "Preferences > Chat.", self)
        hint.setObjectName("popoverHint")
        hint.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 12)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addWidget(QLabel("System prompt", self))
        layout.addWidget(self.system_prompt)
        layout.addLayout(form)
        layout.addWidget(hint)
        self.setFixedWidth(POPOVER_WIDTH)
        self.set_support(ControlSupport())

    def options(self) -> ChatOptions:
        """The values as set; a disabled control (the provider cannot take it) counts as off."""
        temperature = self.temperature.spin.value() if self.temperature.check.isChecked() \
            and self.temperature.isEnabled() else None
        tokens = int(self.output_limit.spin.value()) if self.output_limit.check.isChecked() \
            and self.output_limit.isEnabled() else None
        return ChatOptions(self.system_prompt.toPlainText(), temperature, tokens)

    def set_options(self, options: ChatOptions) -> None:
        self.blockSignals(True)
        try:
            if self.system_prompt.toPlainText() != options.system_prompt:
                self.system_prompt.setPlainText(options.system_prompt)
            self.temperature.check.setChecked(options.temperature is not None)
            if options.temperature is not None:
                self.temperature.spin.setValue(options.temperature)
            self.output_limit.check.setChecked(options.max_output_tokens is not None)
            if options.max_output_tokens is not None:
                self.output_limit.spin.setValue(options.max_output_tokens)
        finally:
            self.blockSignals(False)

    def set_support(self, support: ControlSupport) -> None:
        self.temperature.spin.setMaximum(support.temperature_max)
        self.temperature.set_problem(support.temperature, f"Sampling temperature, 0 to {support.temperature_max:g}; "
                                                          "lower is more focused")
        self.output_limit.set_problem(support.max_output_tokens, "The most tokens the answer may use")


class ChatSettingsButton(QToolButton):
    """The composer's button that opens the popover; its tooltip sums up what is set."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatSettingsButton")
        self.setIcon(icon("settings"))
        self.setIconSize(QSize(16, 16))
        self.setText("Chat")
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.setAccessibleName("Chat settings")
        self.popover = ChatSettingsPopover(self)
        self.popover.options_changed.connect(self._refresh)
        self.clicked.connect(self.show_popover)
        self._refresh()

    def set_options(self, options: ChatOptions) -> None:
        self.popover.set_options(options)
        self._refresh()

    def show_popover(self) -> None:
        popover = self.popover
        popover.adjustSize()
        height = popover.sizeHint().height()
        popover.move(self.mapToGlobal(QPoint(0, -height - 4)))
        popover.show()
        popover.system_prompt.setFocus()

    def _refresh(self) -> None:
        options = self.popover.options()
        parts = ["system prompt" if options.system_prompt.strip() else "no system prompt"]
        if options.temperature is not None:
            parts.append(f"temperature {options.temperature:g}")
        if options.max_output_tokens is not None:
            parts.append(f"at most {options.max_output_tokens:,} tokens")
        self.setToolTip("Chat settings: " + ", ".join(parts))
