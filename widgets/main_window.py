"""The main window's layout: conversations left, chat and composer centre, reasoning and search results right.

It arranges the widgets and fans run events out to them; deciding what to send, where to store it and which
provider to use is the app's job (``app/session/chat_session.py``), which connects to the signals here.

The panes that start hidden (the search-results tab, the approval panel, the inspector drawer) are built, and
their modules imported, when first needed: shown, asked for, or handed the first run event (start-up:
docs/architecture.md). Until then the window keeps what they would have been told (the inspector's trace), and
a pane built later is filled from it, or from the conversation's state when that is shown again.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, assert_never

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMainWindow,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from widgets.chat_view import ChatView
from widgets.composer import Composer
from widgets.conversation_list import ConversationList
from widgets.dialog_focus import return_focus_after_dialogs
from widgets.drawer_space import CHAT_MIN_WIDTH, SIDE_MIN_WIDTH, drawer_space
from widgets.menu_bar import WindowMenus
from widgets.qt_present import present
from widgets.reasoning_pane import ReasoningPane
from widgets.safe_text import plain_label, plain_tooltip
from widgets.send_refusal import SendRefusal
from widgets.status_line import StatusLine
from widgets.typing_indicator import TypingIndicator
from widgets.warning_banner import WarningBanner

if TYPE_CHECKING:  # the event classes are imported where they are matched: pydantic stays off the first frame
    from orchestration.events import RunEvent
    from orchestration.run_trace import RunTrace
    from tools.mcp.status import ServerStatus
    from widgets.approval_panel import ApprovalPanel
    from widgets.inspector import Inspector
    from widgets.search_results_pane import SearchResultsPane

SIDE_WIDTH = 260
PANES_WIDTH = 340
SEARCH_TAB = 1  # the search results' tab in the right panes, after the reasoning


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
        self.notice = QLabel()
        self.notice.setObjectName("paneNotice")  # styled like the panes' notices
        self.notice.setWordWrap(True)
        self.notice.setTextFormat(Qt.TextFormat.PlainText)
        self.notice.setAccessibleName("Welcome notice")
        self.notice.hide()
        self._found = ""  # what the search for local servers found, as shown
        self._offline = ""  # how to answer offline right away (the built-in engine), as plain text
        self.buttons = QVBoxLayout()
        self.add_button = QPushButton("Add a provider…")
        self.add_button.setAccessibleName("Add a provider")
        self.add_button.clicked.connect(lambda: self.add_provider_requested.emit("", ""))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 32, 32, 32)
        layout.addWidget(self.text)
        layout.addWidget(self.notice)
        layout.addLayout(self.buttons)
        layout.addWidget(self.add_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addStretch(1)
        self.set_servers([], searching=True)

    def show_notice(self, text: str) -> None:
        """A problem to show above the buttons (such as a send without a provider); "" removes it."""
        self.notice.setText(text)
        self.notice.setVisible(bool(text))
        self._show_text()

    def _show_text(self) -> None:
        intro = ("<h2>Welcome to Parley</h2><p>Chat with language models from your own machine: hosted APIs "
                 "with your own keys, or local servers such as Ollama, LM Studio, llama.cpp and vLLM. Keys are "
                 "kept in your system keyring.</p>")
        if not self.notice_text():  # a notice after a send says it already, in red
            intro += "<p>No provider is set up yet.</p>"
        if self._offline:
            intro += f"<p>{html.escape(self._offline)}</p>"
        self.text.setText(intro + self._found)

    def set_offline_note(self, text: str) -> None:
        """How to start without a provider (the built-in engine's model), or "" when there is none."""
        self._offline = text
        self._show_text()

    def notice_text(self) -> str:
        return self.notice.text() if not self.notice.isHidden() else ""

    def set_servers(self, servers: list[tuple[str, str, str]], *, searching: bool = False) -> None:
        """``servers``: (title, preset name, base URL) of local servers that answered."""
        while self.buttons.count():
            item = self.buttons.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget:
                widget.deleteLater()
        if searching:
            self._found = "<p>Looking for local model servers on this machine…</p>"
        elif servers:
            self._found = "<p>Found running on this machine:</p>"
        else:
            self._found = ("<p>No local model server answered on the usual ports (Ollama 11434, LM Studio 1234, "
                           "llama.cpp 8080, vLLM 8000).</p>")
        self._show_text()
        for title, preset, url in servers:
            button = QPushButton(f"Use {title} at {url}")
            button.setAccessibleName(f"Use {title}")
            button.clicked.connect(lambda _=False, p=preset, u=url: self.add_provider_requested.emit(p, u))
            self.buttons.addWidget(button)


class MainWindow(QMainWindow):
    preferences_requested = Signal()
    inspector_shown = Signal()
    inspector_run_selected = Signal(str)  # the inspector's run_selected, once it is built
    inspector_export_requested = Signal(str, str)  # the inspector's export_requested, once it is built

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        return_focus_after_dialogs(self)  # the keyboard comes back after a dialog, even with no window manager
        self.setWindowTitle("Parley")
        self.resize(1280, 820)
        self.conversations = ConversationList()
        self.chat_view = ChatView()
        self.welcome = Welcome()
        self.banner = WarningBanner()
        self.composer = Composer()
        self.send_refusal = SendRefusal()  # a send refused before it started says why here, not in the chat
        self._approval: ApprovalPanel | None = None  # these three are built when first needed (see above)
        self._search_pane: SearchResultsPane | None = None
        self._inspector: Inspector | None = None
        self._inspector_trace: tuple[RunTrace | None] | None = None  # set_live's trace while it is not built
        self._mcp_statuses: list[ServerStatus] | None = None  # set_mcp_servers' while it is not built
        self.reasoning_pane = ReasoningPane()
        self.typing = TypingIndicator(self.chat_view.viewport())  # the chat's waiting state

        self.centre_stack = QStackedWidget()
        self.centre_stack.addWidget(self.chat_view)
        self.centre_stack.addWidget(self.welcome)
        centre = QWidget()
        centre_layout = QVBoxLayout(centre)
        centre_layout.setContentsMargins(0, 0, 0, 0)
        centre_layout.setSpacing(0)
        centre_layout.addWidget(self.banner)
        centre_layout.addWidget(self.centre_stack, 1)
        centre_layout.addWidget(self.send_refusal)
        centre_layout.addWidget(self.composer)  # the approval panel goes above it when first asked for
        self._centre_layout = centre_layout

        self.panes = QTabWidget()
        self.panes.setAccessibleName("Reasoning and search results")
        self.panes.addTab(self.reasoning_pane, "Reasoning")
        self.panes.addTab(QWidget(), "Search results")  # the pane takes the tab's place when first needed
        self.panes.currentChanged.connect(self._tab_chosen)
        # a narrow pane shortens the tab names ("Search r…") instead of cutting the last one at the edge
        self.panes.tabBar().setElideMode(Qt.TextElideMode.ElideRight)
        self.panes.tabBar().setUsesScrollButtons(False)
        for index in range(self.panes.count()):
            self.panes.setTabToolTip(index, self.panes.tabText(index))

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.conversations)
        self.splitter.addWidget(centre)
        self.splitter.addWidget(self.panes)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setCollapsible(0, False)
        self.splitter.setCollapsible(1, False)
        self.conversations.setMinimumWidth(SIDE_MIN_WIDTH)
        centre.setMinimumWidth(CHAT_MIN_WIDTH)
        self.splitter.setSizes([SIDE_WIDTH, 1280 - SIDE_WIDTH - PANES_WIDTH, PANES_WIDTH])
        self.setCentralWidget(self.splitter)

        self.setStatusBar(StatusLine())  # long messages elided in the middle, not clipped at the labels
        self.model_label = plain_label("")
        self.usage_label = plain_label("")
        self.usage_label.setToolTip("Tokens of the last run: sent to and written by the model, over all its calls")
        self._run_tokens = (0, 0)
        self.keyring_label = plain_label("")
        self.mcp_label = plain_label("")
        for label, name in ((self.model_label, "Provider and model"), (self.usage_label, "Token usage"),
                            (self.mcp_label, "MCP servers"), (self.keyring_label, "Keyring status")):
            label.setAccessibleName(name)
            self.statusBar().addPermanentWidget(label)

        self._live_answer: list[str] | None = None
        # while the drawer is open: the width set for it, the width before, the splitter's sizes, panes shown
        self._before_drawer: tuple[int, int, list[int], bool] | None = None

        self.reasoning_pane.visibility_wanted.connect(self._show_reasoning)
        QShortcut(QKeySequence("Escape"), self, self._escape)
        self.menus = WindowMenus(self)  # File, Edit, View, Help; the other shortcuts are on their actions
        self.centre_stack.setAccessibleName("Conversation")
        self.conversations.setAccessibleName("Conversations")
        self.reasoning_pane.setAccessibleName("Reasoning")
        self.splitter.setAccessibleName("Main panes")
        self.composer.focus_input()

    # --- panes built when first needed --------------------------------------------------------------
    @property
    def approval(self) -> ApprovalPanel:
        """The approval panel above the composer (hidden until it asks)."""
        if self._approval is None:
            from widgets.approval_panel import ApprovalPanel

            self._approval = ApprovalPanel()
            self._centre_layout.insertWidget(self._centre_layout.indexOf(self.composer), self._approval)
        return self._approval

    def clear_approval(self) -> None:
        """Drop the question on screen, if the panel was ever built."""
        if self._approval is not None:
            self._approval.clear()

    @property
    def search_pane(self) -> SearchResultsPane:
        """The search results' tab; built in place of its placeholder."""
        if self._search_pane is None:
            from widgets.search_results_pane import SearchResultsPane

            pane = self._search_pane = SearchResultsPane()
            pane.setAccessibleName("Search results")
            pane.visibility_wanted.connect(self._show_search)
            current = self.panes.currentIndex()
            placeholder = self.panes.widget(SEARCH_TAB)
            self.panes.blockSignals(True)  # the same tab, only its page changes
            self.panes.removeTab(SEARCH_TAB)
            self.panes.insertTab(SEARCH_TAB, pane, "Search results")
            self.panes.setTabToolTip(SEARCH_TAB, "Search results")
            self.panes.setCurrentIndex(current)
            self.panes.blockSignals(False)
            if placeholder is not None:
                placeholder.deleteLater()
        return self._search_pane

    def built_search_pane(self) -> SearchResultsPane | None:
        return self._search_pane

    def _tab_chosen(self, index: int) -> None:
        if index == SEARCH_TAB and self._search_pane is None:
            self.search_pane.show()  # its tab was chosen: the pane takes the placeholder's place

    @property
    def inspector(self) -> Inspector:
        """The run inspector drawer (Ctrl+I), docked on the right and hidden until opened."""
        if self._inspector is None:
            from widgets.inspector import Inspector

            inspector = self._inspector = Inspector(self)
            self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, inspector)
            inspector.hide()
            inspector.visibilityChanged.connect(self._drawer_visibility)
            inspector.run_selected.connect(self.inspector_run_selected)
            inspector.export_requested.connect(self.inspector_export_requested)
            if self._inspector_trace is not None:
                inspector.set_live(self._inspector_trace[0])
                self._inspector_trace = None
            if self._mcp_statuses is not None:
                inspector.set_mcp_servers(self._mcp_statuses)
                self._mcp_statuses = None
        return self._inspector

    def built_inspector(self) -> Inspector | None:
        return self._inspector

    def inspector_open(self) -> bool:
        """Whether the inspector drawer is on screen (False while it was never built)."""
        return self._inspector is not None and self._inspector.isVisible()

    def show_run_trace(self, trace: RunTrace | None) -> None:
        """The open conversation's latest run for the inspector's timeline (``Inspector.set_live``); kept for
        the drawer until it is built."""
        if self._inspector is None:
            self._inspector_trace = (trace,)
        else:
            self._inspector.set_live(trace)

    def set_mcp_servers(self, statuses: list[ServerStatus]) -> None:
        """The MCP servers' states for the inspector (``Inspector.set_mcp_servers``); kept until it is built."""
        if self._inspector is None:
            self._mcp_statuses = list(statuses)
        else:
            self._inspector.set_mcp_servers(statuses)

    # --- run events ---------------------------------------------------------------------------------
    def handle_event(self, event: RunEvent) -> None:
        """One run event for every pane; a pane not built yet is built by its first event."""
        self.chat_view.handle_event(event)
        self.reasoning_pane.handle_event(event)
        self.search_pane.handle_event(event)
        self.banner.handle_event(event)
        self.inspector.handle_event(event)
        from orchestration import events as ev  # here, not at the top: pydantic stays off the first frame

        match event:
            case ev.ContentDelta():
                if self._live_answer is not None:
                    self._live_answer.append(event.content)
            case ev.Usage():  # the run's total over its model calls, as the inspector and history count it
                self._run_tokens = (self._run_tokens[0] + event.input_tokens,
                                    self._run_tokens[1] + event.output_tokens)
                self.usage_label.setText(f"{self._run_tokens[0]:,} in · {self._run_tokens[1]:,} out")
            case ev.RunStarted():
                self._live_answer = []
                self._run_tokens = (0, 0)
                self.composer.set_running(True)
            case ev.Done():
                self.composer.set_running(False)
                self.composer.focus_input()
            case (ev.ReasoningDelta() | ev.ToolCalls() | ev.ToolExecuting() | ev.ToolResult() | ev.RunWarning()
                  | ev.ModelCallStarted() | ev.ModelCallFinished() | ev.ModelExchange() | ev.RunError()):
                pass
            case _:
                assert_never(event)

    def _show_reasoning(self, wanted: bool) -> None:
        if wanted:
            self.panes.setCurrentWidget(self.reasoning_pane)

    def _show_search(self, wanted: bool) -> None:
        if wanted:
            self.panes.setCurrentWidget(self.search_pane)
        elif self.reasoning_pane.phase_count():
            self.panes.setCurrentWidget(self.reasoning_pane)

    def show_pane(self, pane: QWidget | None) -> None:
        """Show the right panes on ``pane``'s tab (reasoning or search results), or hide them (None)."""
        if pane is None:
            self.panes.hide()
            return
        self.panes.setCurrentWidget(pane)
        if self._before_drawer is not None:  # the drawer took their room; they come back when it closes
            grown_to, before, sizes, _shown = self._before_drawer
            self._before_drawer = (grown_to, before, sizes, True)
            return
        self.panes.show()
        if self.splitter.sizes()[2] == 0:
            sizes = self.splitter.sizes()
            self.splitter.setSizes([sizes[0], max(sizes[1] - PANES_WIDTH, CHAT_MIN_WIDTH), PANES_WIDTH])

    def toggle_inspector(self) -> None:
        if self.inspector.isVisible():
            focused = QApplication.focusWidget()
            had_focus = focused is not None and self.inspector.isAncestorOf(focused)
            self.inspector.hide()
            self._give_back_drawer_room()
            if had_focus:  # else Qt passes it on to the New chat button, and a typed space starts a new chat
                self.composer.input_widget().setFocus()
            return
        self._open_drawer()
        self.inspector.raise_()
        self.inspector.runs.setFocus()
        self.inspector_shown.emit()

    def reopen_inspector(self, resting_width: int, resting_sizes: list[int]) -> None:
        """At a start, with the window at the width it had with the drawer open: open the drawer in that width
        (not growing the window again); closing it gives back ``resting_width`` and the columns' ``resting_sizes``
        (widgets/window_layout.py)."""
        self._open_drawer(grow=False)
        if self._before_drawer is not None:
            shown_width, _before, sizes, panes_shown = self._before_drawer
            self._before_drawer = (shown_width, resting_width, resting_sizes or sizes, panes_shown)
        self.inspector_shown.emit()

    def _drawer_visibility(self, visible: bool) -> None:
        if not visible:  # closed by its own button, or floated off as a window
            self._give_back_drawer_room()

    def _open_drawer(self, *, grow: bool = True) -> None:
        with self.chat_view.one_layout():  # the chat is laid out once for all the width changes below
            self._make_drawer_room(grow=grow)

    def _make_drawer_room(self, *, grow: bool) -> None:
        """Show the inspector with room for it (widgets/drawer_space.py): the window grows if the screen allows,
        else the drawer takes a bounded share and the right panes give way; the sidebar and chat stay usable."""
        if self.inspector.isFloating():  # a window of its own: nothing here needs to make room
            self.inspector.show()
            return
        sizes = self.splitter.sizes()
        screen = self.screen()
        frame = self.frameGeometry().width() - self.width()
        screen_width = screen.availableGeometry().width() - frame if screen is not None else self.width()
        chrome = 2 * self.splitter.handleWidth() + self.style().pixelMetric(
            self.style().PixelMetric.PM_DockWidgetSeparatorExtent)
        space = drawer_space(window_width=self.width(), screen_width=screen_width, side=sizes[0], chat=sizes[1],
                             panes=sizes[2], can_grow=grow and not (self.isMaximized() or self.isFullScreen()),
                             chrome=chrome)
        self._before_drawer = (space.window_width, self.width(), sizes, self.panes.isVisibleTo(self))
        if space.window_width != self.width():
            self.resize(space.window_width, self.height())
            if screen is not None:
                available = screen.availableGeometry()
                overflow = self.frameGeometry().right() - available.right()
                if overflow > 0:
                    self.move(max(available.left(), self.x() - overflow), self.y())
        self.panes.setVisible(space.panes > 0 and self.panes.isVisibleTo(self))
        self.splitter.updateGeometry()  # its minimum width without the panes counts before the drawer is sized
        present(self.layout(), "the window's layout").invalidate()
        self.inspector.show()
        self.resizeDocks([self.inspector], [space.drawer], Qt.Orientation.Horizontal)
        # the splitter gets its new width before its columns are set
        present(self.layout(), "the window's layout").activate()
        self.splitter.setSizes([space.side, space.chat, space.panes])

    def _give_back_drawer_room(self) -> None:
        """The drawer closed: the window shrinks back if it grew for it, and hidden panes come back."""
        if self._before_drawer is None:
            return
        with self.chat_view.one_layout():
            self._restore_drawer_room()

    def _restore_drawer_room(self) -> None:
        assert self._before_drawer is not None
        grown_to, before, sizes, panes_shown = self._before_drawer
        self._before_drawer = None
        if self.width() == grown_to and before != grown_to:
            self.resize(before, self.height())
        self.panes.setVisible(panes_shown)
        # the dock may still count as shown when its own close button hid it
        present(self.layout(), "the window's layout").invalidate()
        present(self.layout(), "the window's layout").activate()
        self.splitter.setSizes(sizes)

    def resting_layout(self) -> tuple[int, list[int], bool]:
        """Width, splitter sizes and whether the right panes show, as they are with the inspector drawer closed
        (what a restart restores before it opens the drawer again: widgets/window_layout.py)."""
        if self._before_drawer is not None:
            grown_to, before, sizes, panes_shown = self._before_drawer
            # resized with the drawer open: the room the window grew by is still the drawer's
            resting = before if self.width() == grown_to else max(self.width() - (grown_to - before), CHAT_MIN_WIDTH)
            return resting, list(sizes), panes_shown
        return self.width(), self.splitter.sizes(), self.panes.isVisibleTo(self)

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
        self.send_refusal.clear()

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

    def set_tokens(self, text: str) -> None:
        """The token counts of the shown conversation's latest run ("" when it has none)."""
        self.usage_label.setText(text)

    def show_welcome(self, visible: bool) -> None:
        self.centre_stack.setCurrentWidget(self.welcome if visible else self.chat_view)

    def show_error_in_chat(self, message: str) -> None:
        self.show_welcome(False)
        self.chat_view.add_error(message)
