"""The main window's layout: conversations left, chat and composer centre, reasoning and search results right.

It arranges the widgets and fans run events out to them; deciding what to send, where to store it and which
provider to use is the app's job (``app/chat_session.py``), which connects to the signals here.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from widgets.approval_panel import ApprovalPanel
from widgets.chat_view import ChatView
from widgets.composer import Composer
from widgets.conversation_list import ConversationList
from widgets.inspector import Inspector
from widgets.reasoning_pane import ReasoningPane
from widgets.safe_text import plain_label, plain_tooltip
from widgets.search_results_pane import SearchResultsPane
from widgets.warning_banner import WarningBanner

SIDE_WIDTH = 260
PANES_WIDTH = 340
INSPECTOR_WIDTH = 560  # the drawer's width when it opens


class Welcome(QWidget):
    """First run: what Parley is, local servers found on this machine, and a way to add a provider."""

    add_provider_requested = Signal(str, str)  # preset name, base URL ("" to choose)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.text.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.text.setAccessibleName("Welcome")
        self.buttons = QVBoxLayout()
        self.add_button = QPushButton("Add a provider…")
        self.add_button.setAccessibleName("Add a provider")
        self.add_button.clicked.connect(lambda: self.add_provider_requested.emit("", ""))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 32, 32, 32)
        layout.addWidget(self.text)
        layout.addLayout(self.buttons)
        layout.addWidget(self.add_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addStretch(1)
        self.set_servers([], searching=True)

    def set_servers(self, servers: list[tuple[str, str, str]], *, searching: bool = False) -> None:
        """``servers``: (title, preset name, base URL) of local servers that answered."""
        while self.buttons.count():
            item = self.buttons.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        intro = ("<h2>Welcome to Parley</h2><p>Chat with language models from your own machine: hosted APIs "
                 "with your own keys, or local servers such as Ollama, LM Studio, llama.cpp and vLLM. Keys are "
                 "kept in your system keyring.</p><p>No provider is set up yet.</p>")
        if searching:
            found = "<p>Looking for local model servers on this machine…</p>"
        elif servers:
            found = "<p>Found running on this machine:</p>"
        else:
            found = ("<p>No local model server answered on the usual ports (Ollama 11434, LM Studio 1234, "
                     "llama.cpp 8080, vLLM 8000).</p>")
        self.text.setText(intro + found)
        for title, preset, url in servers:
            button = QPushButton(f"Use {title} at {url}")
            button.setAccessibleName(f"Use {title}")
            button.clicked.connect(lambda _=False, p=preset, u=url: self.add_provider_requested.emit(p, u))
            self.buttons.addWidget(button)


class MainWindow(QMainWindow):
    preferences_requested = Signal()
    inspector_shown = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Parley")
        self.resize(1280, 820)
        self.conversations = ConversationList()
        self.chat_view = ChatView()
        self.welcome = Welcome()
        self.banner = WarningBanner()
        self.composer = Composer()
        self.approval = ApprovalPanel()
        self.reasoning_pane = ReasoningPane()
        self.search_pane = SearchResultsPane()

        self.centre_stack = QStackedWidget()
        self.centre_stack.addWidget(self.chat_view)
        self.centre_stack.addWidget(self.welcome)
        centre = QWidget()
        centre_layout = QVBoxLayout(centre)
        centre_layout.setContentsMargins(0, 0, 0, 0)
        centre_layout.setSpacing(0)
        centre_layout.addWidget(self.banner)
        centre_layout.addWidget(self.centre_stack, 1)
        centre_layout.addWidget(self.approval)
        centre_layout.addWidget(self.composer)

        self.panes = QTabWidget()
        self.panes.setAccessibleName("Reasoning and search results")
        self.panes.addTab(self.reasoning_pane, "Reasoning")
        self.panes.addTab(self.search_pane, "Search results")

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.conversations)
        self.splitter.addWidget(centre)
        self.splitter.addWidget(self.panes)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setCollapsible(1, False)
        self.splitter.setSizes([SIDE_WIDTH, 1280 - SIDE_WIDTH - PANES_WIDTH, PANES_WIDTH])
        self.setCentralWidget(self.splitter)

        self.model_label = plain_label("")
        self.usage_label = plain_label("")
        self.keyring_label = plain_label("")
        self.mcp_label = plain_label("")
        for label, name in ((self.model_label, "Provider and model"), (self.usage_label, "Token usage"),
                            (self.mcp_label, "MCP servers"), (self.keyring_label, "Keyring status")):
            label.setAccessibleName(name)
            self.statusBar().addPermanentWidget(label)

        self.inspector = Inspector(self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.inspector)
        self.inspector.hide()
        self._live_answer: list[str] | None = None

        self.reasoning_pane.visibility_wanted.connect(self._show_reasoning)
        self.search_pane.visibility_wanted.connect(self._show_search)
        QShortcut(QKeySequence("Ctrl+N"), self, activated=self.conversations.new_chat_requested.emit)
        QShortcut(QKeySequence("Ctrl+K"), self, activated=self.conversations.focus_search)
        QShortcut(QKeySequence("Escape"), self, activated=self._escape)
        QShortcut(QKeySequence("Ctrl+I"), self, activated=self.toggle_inspector)
        QShortcut(QKeySequence("Ctrl+,"), self, activated=self.preferences_requested.emit)
        QShortcut(QKeySequence("Ctrl+Shift+C"), self, activated=self.copy_last_answer)
        self.centre_stack.setAccessibleName("Conversation")
        self.conversations.setAccessibleName("Conversations")
        self.reasoning_pane.setAccessibleName("Reasoning")
        self.search_pane.setAccessibleName("Search results")
        self.splitter.setAccessibleName("Main panes")
        self.composer.focus_input()

    # --- run events ---------------------------------------------------------------------------------
    def handle_event(self, event: Any) -> None:
        self.chat_view.handle_event(event)
        self.reasoning_pane.handle_event(event)
        self.search_pane.handle_event(event)
        self.banner.handle_event(event)
        self.inspector.handle_event(event)
        if event.type == "content" and self._live_answer is not None:
            self._live_answer.append(event.content)
        if event.type == "usage":
            self.usage_label.setText(f"{event.input_tokens:,} in · {event.output_tokens:,} out")
        elif event.type == "run_started":
            self._live_answer = []
            self.composer.set_running(True)
        elif event.type == "done":
            self.composer.set_running(False)
            self.composer.focus_input()

    def _show_reasoning(self, wanted: bool) -> None:
        if wanted:
            self.panes.setCurrentWidget(self.reasoning_pane)

    def _show_search(self, wanted: bool) -> None:
        if wanted:
            self.panes.setCurrentWidget(self.search_pane)
        elif self.reasoning_pane.phase_count():
            self.panes.setCurrentWidget(self.reasoning_pane)

    def toggle_inspector(self) -> None:
        if self.inspector.isVisible():
            self.inspector.hide()
            return
        self.inspector.show()
        self.resizeDocks([self.inspector], [INSPECTOR_WIDTH], Qt.Orientation.Horizontal)
        self.inspector.raise_()
        self.inspector.runs.setFocus()
        self.inspector_shown.emit()

    def last_answer(self) -> str:
        """The answer of the latest run in this window, else the newest answer of the open conversation."""
        if self._live_answer:
            return "".join(self._live_answer)
        return self.chat_view.last_history_answer()

    def copy_last_answer(self) -> None:
        answer = self.last_answer()
        if answer:
            QGuiApplication.clipboard().setText(answer)
            self.statusBar().showMessage("Copied the last answer.", 3000)

    def forget_live_answer(self) -> None:
        """A conversation was opened or a new chat started: the history's answers apply again."""
        self._live_answer = None

    def _escape(self) -> None:
        if self.composer.is_running():
            self.composer.stop_requested.emit()

    def follow_theme(self, scheme: str) -> None:
        """Called with "light" or "dark" whenever the theme is applied."""
        self.chat_view.set_dark(scheme == "dark")

    # --- status -------------------------------------------------------------------------------------
    def set_status(self, *, model: str | None = None, keyring: str | None = None, mcp: str | None = None,
                   mcp_detail: str | None = None) -> None:
        if mcp is not None:
            self.mcp_label.setText(mcp)
            self.mcp_label.setToolTip(plain_tooltip(mcp_detail or ""))
        if model is not None:
            self.model_label.setText(model)
        if keyring is not None:
            self.keyring_label.setText(keyring)

    def show_welcome(self, visible: bool) -> None:
        self.centre_stack.setCurrentWidget(self.welcome if visible else self.chat_view)

    def show_error_in_chat(self, message: str) -> None:
        self.show_welcome(False)
        self.chat_view.add_error(message)
