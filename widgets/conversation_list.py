"""The left column: conversations (pinned first, then newest), a search box over the full-text index, and
new / rename / delete / pin actions.

It only shows what it is given and asks for changes through signals; the app reads and writes the database.
The rows are a list model (widgets/conversation_model.py) in a ``QListView`` with rows of one height, so a
history of 10,000 conversations fills and scrolls without a stall; the window's list starts from the
conversations' ids alone and reads a row when it is first shown (``show_order``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QModelIndex, QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QInputDialog,
    QLineEdit,
    QListView,
    QMenu,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from widgets.conversation_delegate import ConversationDelegate
from widgets.conversation_model import (
    ANSWERING_TEXT,
    ID_ROLE,
    ConversationItem,
    ConversationModel,
    ConversationRows,
    SearchHit,
)
from widgets.icons import icon

SEARCH_DEBOUNCE_MS = 200

__all__ = ["ANSWERING_TEXT", "ID_ROLE", "ConversationItem", "ConversationList", "ConversationRows", "SearchHit"]


RENAME_DIALOG_MIN_WIDTH_PX = 320  # the title field; it makes the dialog wide enough for its title


def delete_confirmation(parent: QWidget | None, title: str) -> QMessageBox:
    """The delete question: Qt's own dialog (so it follows the app's theme), No by default, and plain text (a title
    like ``<img src=...>`` would otherwise be read as HTML)."""
    box = QMessageBox(QMessageBox.Icon.Question, "Delete conversation",
                      f"Delete “{title}” and everything in it? This cannot be undone.",
                      QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No, parent)
    box.setOption(QMessageBox.Option.DontUseNativeDialog, True)
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setDefaultButton(QMessageBox.StandardButton.No)
    box.setEscapeButton(QMessageBox.StandardButton.No)
    return box


def rename_dialog(parent: QWidget | None, current: str) -> QInputDialog:
    """The rename prompt, wide enough that its title is not cut."""
    dialog = QInputDialog(parent)
    dialog.setWindowTitle("Rename conversation")
    dialog.setLabelText("Title:")
    dialog.setTextValue(current)
    field = dialog.findChild(QLineEdit)
    if field is not None:  # the dialog sizes itself to its field; a wider field gives the title room
        field.setMinimumWidth(RENAME_DIALOG_MIN_WIDTH_PX)
    return dialog


def _ask_confirmation(parent: QWidget, title: str) -> bool:
    return delete_confirmation(parent, title).exec() == QMessageBox.StandardButton.Yes


def _ask_title(parent: QWidget, current: str) -> str | None:
    dialog = rename_dialog(parent, current)
    if dialog.exec() != QInputDialog.DialogCode.Accepted:
        return None
    text = dialog.textValue().strip()
    return text or None


class ConversationList(QWidget):
    conversation_selected = Signal(int)
    message_selected = Signal(int, int)  # a search hit in a message chosen: (conversation, message)
    new_chat_requested = Signal()
    search_changed = Signal(str)
    rename_requested = Signal(int, str)
    delete_requested = Signal(int)
    pin_requested = Signal(int, bool)

    def __init__(self, parent: QWidget | None = None, *,
                 confirm_delete: Callable[[QWidget, str], bool] = _ask_confirmation,
                 ask_title: Callable[[QWidget, str], str | None] = _ask_title) -> None:
        super().__init__(parent)
        self.setObjectName("conversationList")
        self._confirm_delete = confirm_delete
        self._ask_title = ask_title
        self._reader: ConversationRows | None = None  # also answers for conversations whose row is not read yet
        self._searching = False

        self.new_button = QPushButton(icon("new-chat"), "New chat")
        self.new_button.setAccessibleName("New chat")
        self.new_button.clicked.connect(self.new_chat_requested)
        # connected first, so the search is gone before the session lists the conversations for the new chat
        self.new_chat_requested.connect(self.leave_search)
        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText("Search conversations")
        self.search_box.setAccessibleName("Search conversations")
        self.search_box.setClearButtonEnabled(True)
        self.model = ConversationModel(self)
        self.list = QListView()
        self.list.setModel(self.model)
        self.list.setUniformItemSizes(True)  # one row height: the view never measures 10,000 rows
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setAccessibleName("Conversations")
        self.list.setItemDelegate(ConversationDelegate(self.list))
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._menu)
        self.list.activated.connect(self._activated)
        self.list.clicked.connect(self._activated)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(SEARCH_DEBOUNCE_MS)
        self._debounce.timeout.connect(lambda: self.search_changed.emit(self.search_box.text().strip()))
        self.search_box.textChanged.connect(lambda _text: self._debounce.start())
        # keyboard only (user pass 4): Down goes from the search box into the list, Enter opens the first row
        self.search_box.returnPressed.connect(self._open_first)
        self.search_box.installEventFilter(self)

        top = QHBoxLayout()
        top.addWidget(self.new_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        layout.addLayout(top)
        layout.addWidget(self.search_box)
        layout.addWidget(self.list, 1)

    # --- content ------------------------------------------------------------------------------------
    def set_conversations(self, items: list[ConversationItem], selected: int | None = None) -> None:
        """Show conversations, pinned first, then the most recently updated."""
        self._searching = False
        self._reader = None
        self.model.set_conversations(items)
        self._select(selected)

    def show_order(self, ids: list[int], reader: ConversationRows, selected: int | None = None) -> None:
        """Show conversations by their ids, in the list's order (pinned first, then the most recently updated);
        each row is read from ``reader`` when it is first shown."""
        self._searching = False
        self._reader = reader
        self.model.set_order(ids, reader)
        self._select(selected)

    def _select(self, selected: int | None) -> None:
        row = None if selected is None else self.model.row_of(selected)
        if row is not None:
            self.list.setCurrentIndex(self.model.index(row, 0))

    def mark_open(self, conversation_id: int | None) -> None:
        """Highlight the row of the conversation the chat shows (none for a new chat or one not listed), without
        opening it again: the chat can change without a click in the list (an import, a search hit, New chat)."""
        row = None if conversation_id is None else self.model.row_of(conversation_id)
        if row is None:
            self.list.selectionModel().clear()
        else:
            self.list.setCurrentIndex(self.model.index(row, 0))

    def _item(self, conversation_id: int) -> ConversationItem | None:
        item = self.model.listed(conversation_id)
        if item is None and self._reader is not None:
            item = next(iter(self._reader.rows([conversation_id])), None)
        return item

    def set_search_results(self, hits: list[SearchHit]) -> None:
        self._searching = True
        self.model.set_search_results(hits)

    def leave_search(self) -> None:
        """New chat (button, File menu, Ctrl+N): empty the search box and leave search mode, so the list shows every
        conversation and the new chat appears in it once its first question is sent (docs/widgets.md)."""
        self.search_box.clear()  # with its signals: blocked, the box kept showing its clear button
        self._debounce.stop()  # the clear started it: no search for the emptied box comes after
        self._searching = False

    @property
    def searching(self) -> bool:
        return self._searching

    def focus_search(self) -> None:
        self.search_box.setFocus()
        self.search_box.selectAll()

    def ids_in_order(self) -> list[int]:
        return self.model.ids_in_order()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (watched is self.search_box and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent)
                and event.key() == Qt.Key.Key_Down and self.model.rowCount() > 0):
            self.list.setFocus(Qt.FocusReason.TabFocusReason)
            if not self.list.currentIndex().isValid():
                self.list.setCurrentIndex(self.model.index(0, 0))
            return True
        return super().eventFilter(watched, event)

    def _open_first(self) -> None:
        """Enter in the search box: the row shown first (the best hit while searching) is opened."""
        if self._debounce.isActive():  # the results of what was just typed come first
            self._debounce.stop()
            self.search_changed.emit(self.search_box.text().strip())
        if self.model.rowCount() > 0:
            self.list.setCurrentIndex(self.model.index(0, 0))
            self._activated(self.model.index(0, 0))

    # --- actions ------------------------------------------------------------------------------------
    def _activated(self, index: QModelIndex) -> None:
        conversation_id = self.model.conversation_id(index.row()) if index.isValid() else None
        message_id = self.model.message_id(index.row()) if index.isValid() else None
        if conversation_id is not None and message_id is not None:
            self.message_selected.emit(conversation_id, message_id)
        elif conversation_id is not None:
            self.conversation_selected.emit(conversation_id)

    def _menu(self, point: QPoint) -> None:
        index = self.list.indexAt(point)
        conversation_id = self.model.conversation_id(index.row()) if index.isValid() else None
        if conversation_id is None:
            return
        menu = QMenu(self)
        rename = menu.addAction("Rename…")
        item = self._item(conversation_id)
        pin = menu.addAction("Unpin" if item and item.pinned else "Pin")
        delete = menu.addAction("Delete…")
        chosen = menu.exec(self.list.mapToGlobal(point))
        if chosen is rename:
            self.request_rename(conversation_id)
        elif chosen is pin:
            self.pin_requested.emit(conversation_id, not (item and item.pinned))
        elif chosen is delete:
            self.request_delete(conversation_id)

    def request_rename(self, conversation_id: int) -> None:
        item = self._item(conversation_id)
        title = self._ask_title(self, item.title if item else "")
        if title:
            self.rename_requested.emit(conversation_id, title)

    def request_delete(self, conversation_id: int) -> None:
        item = self._item(conversation_id)
        if self._confirm_delete(self, item.title if item else "this conversation"):
            self.delete_requested.emit(conversation_id)
