"""The main window's menu bar: File, Edit, View and Help.

Every action reuses what the window already does (new chat, search box, panes, inspector, copy the last answer,
preferences) or asks the app through a signal (import, export, quit, theme), since widgets never touch files,
the database or the settings. The window-wide shortcuts live here, on the actions, so the menus show them and
no key is bound twice; Esc (stop) stays a plain shortcut on the window.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal, SignalInstance
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QApplication, QMenu, QMenuBar, QMessageBox, QTabWidget, QWidget

if TYPE_CHECKING:
    from widgets.composer import Composer
    from widgets.conversation_list import ConversationList

SEARCH_TAB = 1  # widgets/main_window.py's SEARCH_TAB (the window imports this module, not the reverse)


class MenuWindow(Protocol):
    """What the menus use of the main window (widgets/main_window.py, which builds them). Named here, so that
    this module needs nothing from the window's: the window imports the menus, never the reverse."""

    conversations: ConversationList
    composer: Composer
    panes: QTabWidget
    preferences_requested: SignalInstance

    @property
    def reasoning_pane(self) -> QWidget: ...
    @property
    def search_pane(self) -> QWidget: ...
    def menuBar(self, /) -> QMenuBar: ...
    def window(self, /) -> QWidget: ...
    def copy_last_answer(self) -> None: ...
    def toggle_inspector(self) -> None: ...
    def built_inspector(self) -> QWidget | None: ...
    def show_pane(self, pane: QWidget | None) -> None: ...

THEMES = (("light", "&Light"), ("dark", "&Dark"), ("system", "Follow the &system"))
WINDOW_SHORTCUTS = (
    ("Ctrl+N", "New chat"), ("Ctrl+O", "Import a conversation"), ("Ctrl+K", "Search conversations"),
    ("Ctrl+Shift+A", "Attach files to the message"),
    ("Enter", "Send the message"), ("Shift+Enter", "New line in the message"), ("Esc", "Stop the answer"),
    ("Ctrl+Shift+C", "Copy the last answer"), ("Ctrl+I", "Run inspector"), ("Ctrl+,", "Preferences"),
    ("Ctrl+Shift+U", "Usage and cost"), ("Ctrl+Q", "Quit"),
)


def shortcuts() -> tuple[tuple[str, str], ...]:
    """The window's shortcuts, then the per-message actions' (widgets/message_actions.py, imported when the
    list is shown: the message actions' widgets are not needed before the first frame)."""
    from widgets.message_actions import SHORTCUTS as MESSAGE_SHORTCUTS

    return (*WINDOW_SHORTCUTS, *MESSAGE_SHORTCUTS)


def _edit_focused(method: str) -> None:
    """Copy, paste or select all in whichever text field has the focus."""
    widget = QApplication.focusWidget()
    action = getattr(widget, method, None)
    if callable(action):
        action()


class WindowMenus(QObject):
    import_requested = Signal()
    export_requested = Signal(str)  # "markdown" or "json"
    quit_requested = Signal()
    theme_requested = Signal(str)  # "light", "dark" or "system"
    usage_requested = Signal()  # View > Usage and cost

    def __init__(self, window: MenuWindow) -> None:
        widget = window.window()  # the main window itself, a top-level window: the menus' and their boxes' parent
        super().__init__(widget)
        self.window = window
        self.widget = widget
        self.version = ""  # shown in About; the app sets it, or sets version_lookup to have it read then
        self.version_lookup: Callable[[], str] | None = None
        self.shortcuts_box: QMessageBox | None = None
        self.about_box: QMessageBox | None = None
        bar = window.menuBar()

        file = bar.addMenu("&File")
        self.new_chat = self._add(file, "&New chat", "Ctrl+N", lambda: window.conversations.new_chat_requested.emit())
        # keyboard only (user pass 4): the composer's paper clip had no shortcut
        self.attach = self._add(file, "&Attach files…", "Ctrl+Shift+A", lambda: window.composer.attach_requested.emit())
        file.addSeparator()
        self.import_conversation = self._add(file, "&Import conversation…", "Ctrl+O",
                                             lambda: self.import_requested.emit())
        export = file.addMenu("&Export conversation")
        self.export_markdown = self._add(export, "As &Markdown…", None, lambda: self.export_requested.emit("markdown"))
        self.export_json = self._add(export, "As &JSON…", None, lambda: self.export_requested.emit("json"))
        self.export_menu = export
        file.addSeparator()
        self.quit = self._add(file, "&Quit", "Ctrl+Q", lambda: self.quit_requested.emit())
        self.set_conversation_open(False)

        edit = bar.addMenu("&Edit")
        self.copy = self._add(edit, "&Copy", QKeySequence.StandardKey.Copy, lambda: _edit_focused("copy"))
        self.paste = self._add(edit, "&Paste", QKeySequence.StandardKey.Paste, lambda: _edit_focused("paste"))
        self.select_all = self._add(edit, "Select &all", QKeySequence.StandardKey.SelectAll,
                                    lambda: _edit_focused("selectAll"))
        edit.addSeparator()
        self.copy_answer = self._add(edit, "Copy the last &answer", "Ctrl+Shift+C", lambda: window.copy_last_answer())
        self.find = self._add(edit, "&Find in conversations", "Ctrl+K", lambda: window.conversations.focus_search())
        edit.addSeparator()
        self.preferences = self._add(edit, "P&references…", "Ctrl+,", lambda: window.preferences_requested.emit())

        view = bar.addMenu("&View")
        self.reasoning = self._add(view, "&Reasoning pane", None, lambda on: self._pane(window.reasoning_pane, on))
        self.search_results = self._add(view, "&Search results pane", None,
                                        lambda on: self._pane(window.search_pane, on))
        self.inspector = self._add(view, "Run &inspector", "Ctrl+I", lambda _on: window.toggle_inspector())
        for action in (self.reasoning, self.search_results, self.inspector):
            action.setCheckable(True)
        self.usage = self._add(view, "&Usage and cost…", "Ctrl+Shift+U", lambda: self.usage_requested.emit())
        view.addSeparator()
        theme = view.addMenu("&Theme")
        self.themes = QActionGroup(self)
        self.theme_actions: dict[str, QAction] = {}
        for mode, label in THEMES:
            action = self._add(theme, label, None, lambda _on=False, m=mode: self.theme_requested.emit(m))
            action.setCheckable(True)
            self.themes.addAction(action)
            self.theme_actions[mode] = action
        view.aboutToShow.connect(self.sync_view)

        help_menu = bar.addMenu("&Help")
        self.keyboard = self._add(help_menu, "&Keyboard shortcuts", "F1", lambda: self.show_shortcuts())
        self.about = self._add(help_menu, "&About Parley", None, lambda: self.show_about())

    def _add(self, menu: QMenu, text: str, shortcut: str | QKeySequence.StandardKey | None,
             slot: Callable[..., object]) -> QAction:
        action = menu.addAction(text)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        return action

    # --- state --------------------------------------------------------------------------------------
    def set_conversation_open(self, open_: bool) -> None:
        """Export applies to the open conversation; without one it is disabled."""
        for action in (self.export_markdown, self.export_json):
            action.setEnabled(open_)

    def set_theme(self, mode: str) -> None:
        if mode in self.theme_actions:
            self.theme_actions[mode].setChecked(True)

    def sync_view(self) -> None:
        """The View menu's checks follow the window: which pane is shown, whether the inspector is open."""
        panes = self.window.panes
        shown = panes.isVisibleTo(self.widget)
        self.reasoning.setChecked(shown and panes.currentWidget() is self.window.reasoning_pane)
        self.search_results.setChecked(shown and panes.currentIndex() == SEARCH_TAB)  # built or not
        inspector = self.window.built_inspector()
        self.inspector.setChecked(inspector is not None and inspector.isVisibleTo(self.widget))

    def _pane(self, pane: QWidget, on: bool) -> None:
        self.window.show_pane(pane if on else None)
        self.sync_view()

    # --- help ---------------------------------------------------------------------------------------
    def show_shortcuts(self) -> QMessageBox:
        rows = "".join(f"<tr><td><b>{keys}</b>&nbsp;&nbsp;</td><td>{what}</td></tr>" for keys, what in shortcuts())
        self.shortcuts_box = self._box("Keyboard shortcuts", f"<table>{rows}</table>")
        return self.shortcuts_box

    def show_about(self) -> QMessageBox:
        if not self.version and self.version_lookup is not None:
            self.version = self.version_lookup()
        version = f" {html.escape(self.version)}" if self.version else ""
        self.about_box = self._box("About Parley", f"<h3>Parley{version}</h3><p>An open-source desktop chat app "
                                   "for language models: hosted APIs with your own keys and local servers, one "
                                   "streaming tool loop, keys in the system keyring.</p>")
        return self.about_box

    def _box(self, title: str, text: str) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.NoIcon, title, text, QMessageBox.StandardButton.Close, self.widget)
        box.setObjectName(title)
        box.open()
        return box
