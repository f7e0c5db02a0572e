"""The composer: where the user writes a message and picks model, tools, reasoning effort and the chat's settings
(system prompt, temperature, output limit: widgets/chat_settings_popover.py) for the next run. A picker the
current provider cannot use is disabled with a tooltip saying why.

Enter sends and Shift+Enter starts a new line. While a run is active the Send button is a Stop button and
Enter does not send (the text stays for later). After a send the input is cleared; ``restore_text`` puts the
text back when the send failed, so nothing the user wrote is lost. The composer only emits signals; the run
controller decides what a send or a stop does.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QEvent, QMimeData, QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from orchestration.reasoning_effort import EFFORT_CHOICES, EffortChoice
from widgets.attachment_strip import AttachmentStrip
from widgets.chat_settings_popover import ChatOptions, ChatSettingsButton, ControlSupport
from widgets.click_focus import ClickFocus
from widgets.compact_row import CompactRow
from widgets.file_drop import image_png, local_files
from widgets.icons import icon
from widgets.model_picker import ModelPicker
from widgets.tool_picker import ToolOption, ToolPicker

REASONING_EFFORTS: tuple[EffortChoice, ...] = EFFORT_CHOICES
"""The picker's choices; "off" asks for no particular effort (see ``effort_for_request``)."""
DEFAULT_REASONING_EFFORT = "off"
MIN_INPUT_LINES = 2
MAX_INPUT_LINES = 10
"""The input grows with its text between these many lines, then scrolls."""
PLACEHOLDER_TEXT = "Message Parley…  (Enter to send, Shift+Enter for a new line)"
NO_MODELS_TEXT = "No model configured"
_LEADING_BLANK_LINES = re.compile(r"\A(?:[ \t]*\n)+")
_ICON_SIZE = QSize(16, 16)
_SEND_ICON_COLOR = "#ffffff"


def message_text(typed: str) -> str:
    """What is sent for the typed text: without blank lines before it and trailing whitespace ("" if blank).

    Indentation of the first line is kept (it may be code).
    """
    return _LEADING_BLANK_LINES.sub("", typed).rstrip()


class ComposerInput(QPlainTextEdit):
    """A multi-line input where Enter submits and Shift+Enter inserts a newline."""

    submit_requested = Signal()
    files_pasted = Signal(list)  # local paths copied in a file manager
    image_pasted = Signal(bytes)  # a picture on the clipboard, as PNG

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composerInput")
        self.setAccessibleName("Message")
        self.setAccessibleDescription("Enter sends the message; Shift+Enter starts a new line.")
        self.setPlaceholderText(PLACEHOLDER_TEXT)
        self.setTabChangesFocus(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.document().documentLayout().documentSizeChanged.connect(self._fit_height)
        self._fit_height()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.textCursor().insertText("\n")
            else:
                self.submit_requested.emit()
            event.accept()
            return
        super().keyPressEvent(event)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return bool(local_files(source)) or source.hasImage() or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        """Pasted files and pictures become attachments; text is pasted as usual."""
        files = local_files(source)
        image = None if files else image_png(source)
        if files:
            self.files_pasted.emit(files)
        elif image is not None:
            self.image_pasted.emit(image)
        else:
            super().insertFromMimeData(source)

    def _fit_height(self, *_: object) -> None:
        # QPlainTextEdit's document layout measures its height in wrapped lines.
        lines = int(self.document().documentLayout().documentSize().height())
        shown = min(max(lines, MIN_INPUT_LINES), MAX_INPUT_LINES)
        margins = self.contentsMargins()
        frame = 2 * self.document().documentMargin()
        self.setFixedHeight(int(shown * self.fontMetrics().lineSpacing() + frame + margins.top() + margins.bottom()))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.FontChange:
            self._fit_height()


class Composer(QWidget):
    """Input, send/stop button and the inline pickers; see the module docstring for the behaviour."""

    send_requested = Signal(str)
    stop_requested = Signal()
    model_changed = Signal(str, str)
    """(provider id, model) after the user picks another model."""
    reasoning_effort_changed = Signal(str)
    chat_settings_changed = Signal()
    """The user changed the tools, the reasoning effort or the chat settings popover."""
    attach_requested = Signal()  # the attach button: the app asks which files

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self._running = False

        self._input = ComposerInput(self)
        self._input.submit_requested.connect(self._on_submit)

        self._model = ModelPicker(self)  # as wide as its choice needs, within a named limit
        self._model.setObjectName("modelPicker")
        self._model.setAccessibleName("Model")
        self._model.setToolTip("Provider and model for the next message")
        self._model.currentIndexChanged.connect(self._on_model_index_changed)

        self._tools = ToolPicker(self)
        self._tools.tools_changed.connect(self.chat_settings_changed)
        self._chat = ChatSettingsButton(self)
        self._chat.popover.options_changed.connect(self.chat_settings_changed)
        self._effort_tooltip = "How much the model should reason before answering"

        self._effort = QComboBox(self)
        self._effort.setObjectName("effortPicker")
        self._effort.setAccessibleName("Reasoning effort")
        self._effort.setToolTip(self._effort_tooltip)
        for effort in REASONING_EFFORTS:
            self._effort.addItem(icon("reasoning"), effort.capitalize(), effort)
        self._effort.setCurrentIndex(REASONING_EFFORTS.index(DEFAULT_REASONING_EFFORT))
        self._effort.currentIndexChanged.connect(self._on_effort_changed)

        self.attachments = AttachmentStrip(self)
        self._attach = QToolButton(self)
        self._attach.setObjectName("attachButton")
        self._attach.setIcon(icon("attach"))
        self._attach.setIconSize(_ICON_SIZE)
        self._attach.setAccessibleName("Attach files")
        self._attach.setToolTip("Attach images or documents (or paste, or drop them on the chat)")
        self._attach.clicked.connect(self.attach_requested)

        self._send = QPushButton(self)
        self._send.setObjectName("sendButton")
        self._send.setIconSize(_ICON_SIZE)
        self._send.setCursor(Qt.CursorShape.PointingHandCursor)
        self._send.clicked.connect(self._on_send_clicked)

        frame = QFrame(self)
        frame.setObjectName("composerFrame")
        controls = QHBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.setSpacing(6)
        controls.addWidget(self._attach)
        controls.addWidget(self._model)
        controls.addWidget(self._tools)
        controls.addWidget(self._effort)
        controls.addWidget(self._chat)
        controls.addStretch(1)
        controls.addWidget(self._send)
        inner = QVBoxLayout(frame)
        inner.setContentsMargins(12, 10, 10, 10)
        inner.setSpacing(8)
        inner.addWidget(self.attachments)
        inner.addWidget(self._input)
        inner.addLayout(controls)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(frame)
        self._click_focus = ClickFocus(self._input, frame)  # a click between the chips and the field types here
        margins = inner.contentsMargins()  # short of room, Tools and Chat go icon-only before the picker is cut
        self._compact_row = CompactRow(frame, controls, margins.left() + margins.right(), [self._tools, self._chat])

        self.set_models([])
        self._refresh_send_button()

    # --- state ------------------------------------------------------------------------------------------------

    def text(self) -> str:
        return self._input.toPlainText()

    def input_widget(self) -> ComposerInput:
        return self._input

    def is_running(self) -> bool:
        return self._running

    def set_running(self, running: bool) -> None:
        """While a run is active Send is Stop and Enter does not send."""
        self._running = running
        self._refresh_send_button()

    def restore_text(self, text: str) -> None:
        """Put back the text of a send that failed; text typed since then is kept after it."""
        if not text:
            return
        typed_since = self._input.toPlainText()
        self._input.setPlainText(f"{text}\n\n{typed_since}" if typed_since.strip() else text)
        self._input.moveCursor(QTextCursor.MoveOperation.End)

    def focus_input(self) -> None:
        self._input.setFocus(Qt.FocusReason.OtherFocusReason)

    # --- pickers ----------------------------------------------------------------------------------------------

    def set_models(self, models: list[tuple[str, str]]) -> None:
        """The (provider id, model) choices; keeps the current choice when it is still offered."""
        previous = self.current_model()
        self._model.blockSignals(True)
        self._model.clear()
        for provider, model in models:
            self._model.addItem(f"{model} · {provider}", (provider, model))
        if not models:
            self._model.addItem(NO_MODELS_TEXT, None)
        self._model.setEnabled(bool(models))
        if previous is not None and previous in models:
            self._model.setCurrentIndex(models.index(previous))
        self._model.blockSignals(False)
        current = self.current_model()
        if current is not None and current != previous:
            self.model_changed.emit(*current)

    def current_model(self) -> tuple[str, str] | None:
        data = self._model.currentData()
        return tuple(data) if data else None

    def set_current_model(self, provider: str, model: str) -> bool:
        """Select a model; returns False (and changes nothing) when it is not among the choices."""
        for index in range(self._model.count()):
            data = self._model.itemData(index)
            if data and tuple(data) == (provider, model):
                self._model.setCurrentIndex(index)
                return True
        return False

    def tool_picker(self) -> ToolPicker:
        return self._tools

    def chat_settings_button(self) -> ChatSettingsButton:
        return self._chat

    def set_tool_options(self, options: list[ToolOption], selected: tuple[str, ...] | None = None) -> None:
        self._tools.set_options(options, selected)

    def selected_tools(self) -> tuple[str, ...] | None:
        """The tools this chat offers; None: all of them."""
        return self._tools.selected_tools()

    def set_selected_tools(self, selected: tuple[str, ...] | None) -> None:
        self._tools.set_selected(selected)

    def chat_options(self) -> ChatOptions:
        return self._chat.popover.options()

    def set_chat_options(self, options: ChatOptions) -> None:
        self._chat.set_options(options)

    def set_control_support(self, support: ControlSupport, reasoning_effort: str | None,
                            tools: str | None = None) -> None:
        """What the current provider and model cannot take: each reason disables its control, as its tooltip."""
        self._chat.popover.set_support(support)
        self._tools.set_unavailable(tools)
        self._effort.setEnabled(reasoning_effort is None)
        self._effort.setToolTip(self._effort_tooltip if reasoning_effort is None
                                else f"Reasoning effort is not available: {reasoning_effort}")

    def effort_available(self) -> bool:
        return self._effort.isEnabled()

    def reasoning_effort(self) -> str:
        """One of ``REASONING_EFFORTS``."""
        return str(self._effort.currentData())

    def set_reasoning_effort(self, effort: str) -> None:
        if effort not in REASONING_EFFORTS:
            raise ValueError(f"reasoning effort must be one of {', '.join(REASONING_EFFORTS)}, not {effort!r}")
        self._effort.setCurrentIndex(REASONING_EFFORTS.index(effort))

    # --- actions ----------------------------------------------------------------------------------------------

    def _on_submit(self) -> None:
        if not self._running:
            self._send_current_text()

    def _on_send_clicked(self) -> None:
        if self._running:
            self.stop_requested.emit()
        else:
            self._send_current_text()
        self.focus_input()

    def _send_current_text(self) -> None:
        text = message_text(self._input.toPlainText())
        if not text and not self.attachments.chips():
            return
        self._input.clear()
        self.send_requested.emit(text)

    def _on_effort_changed(self, _index: int) -> None:
        self.reasoning_effort_changed.emit(self.reasoning_effort())
        self.chat_settings_changed.emit()

    def _on_model_index_changed(self, _index: int) -> None:
        current = self.current_model()
        if current is not None:
            self.model_changed.emit(*current)

    def _refresh_send_button(self) -> None:
        if self._running:
            self._send.setText("Stop")
            self._send.setIcon(icon("stop", _SEND_ICON_COLOR))
            self._send.setAccessibleName("Stop the run")
            self._send.setToolTip("Stop this conversation's answer (the partial answer is kept). A conversation "
                                  "answers one question at a time; other conversations can send meanwhile.")
        else:
            self._send.setText("Send")
            self._send.setIcon(icon("send", _SEND_ICON_COLOR))
            self._send.setAccessibleName("Send message")
            self._send.setToolTip("Send the message (Enter)")
        self._send.setProperty("running", self._running)
        self._send.style().unpolish(self._send)
        self._send.style().polish(self._send)
