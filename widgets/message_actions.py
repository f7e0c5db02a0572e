"""What can be done to one message of the chat, by mouse and by keyboard: copy it as Markdown, edit it, get
another answer (with the same or another model), retry after an error, continue after Stop, delete a question
with its answer, and move between versions (``‹ 2/3 ›``).

The chat is one text document (widgets/chat_view.py), so the actions are not widgets inside each message: one
small action bar floats over the message under the mouse (or the one chosen with Alt+Up/Alt+Down), the context
menu lists the same actions for the message clicked, and window-wide shortcuts act on the chosen message (the
last one that fits when none is chosen). Copying happens here; everything that changes the conversation is a
signal carrying the stored message's id, for the app to carry out (widgets never touch the database).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QPoint, Qt, Signal
from PySide6.QtGui import QAction, QContextMenuEvent, QCursor, QGuiApplication, QKeySequence, QMouseEvent, QShortcut
from PySide6.QtWidgets import QMenu, QMessageBox, QWidget

from widgets.chat_view import ChatMessage, ChatView
from widgets.message_action_bar import ACTIONS, ActionBar
from widgets.message_editor import MessageEditor

BAR_MARGIN_PX = 6  # between the action bar and the right edge of the chat
STATUS_MS = 3000  # how long "Copied…" stays in the status bar


SELECT_PREVIOUS, SELECT_NEXT = "Alt+Up", "Alt+Down"
# The keys, for README, docs/widgets.md and Help > Keyboard shortcuts.
SHORTCUTS = (
    (f"{SELECT_PREVIOUS} / {SELECT_NEXT}", "Choose the previous / next message for the actions below"),
    ("Ctrl+Shift+M", "Copy the chosen message as Markdown"),
    ("Ctrl+Shift+E", "Edit the chosen message (a new version)"),
    ("Ctrl+Shift+R", "Regenerate the chosen answer, or retry after an error"),
    ("Ctrl+Shift+Enter", "Continue an answer stopped early"),
    ("Alt+Left / Alt+Right", "Previous / next version of the chosen message"),
    ("Ctrl+Shift+Delete", "Delete the chosen question and its answer"),
)


class MessageActions(QObject):
    """The actions of the chat view's messages: the floating bar, the context menu and the shortcuts."""

    answer_again = Signal(int, str, str)  # question id, provider and model ("" and "": the chat's own)
    edit_question = Signal(int, str, list)  # question id, the new text, the attachments kept (keys): a new version
    edit_answer = Signal(int, str)  # answer id, the user's text (kept as a new version)
    continue_answer = Signal(int)  # answer id
    switch_version = Signal(int, int)  # message id, -1 or +1
    delete_pair = Signal(int)  # question or answer id
    copied = Signal(str)  # the text put on the clipboard

    def __init__(self, view: ChatView, shortcuts_on: QWidget | None = None) -> None:
        super().__init__(view)
        self.view = view
        self.bar = ActionBar(view.viewport())
        self.bar.triggered.connect(lambda key: self.trigger(key, self.current()))
        self.bar.model_chosen.connect(lambda p, m: self._answer_again(self.current(), p, m))
        self.hovered: int | None = None
        self.chosen: int | None = None  # chosen with the keyboard (Alt+Up / Alt+Down)
        self.is_busy: Callable[[], bool] = lambda: False  # a run of this conversation streams: only copying
        self.models: list[tuple[str, str]] = []
        self.editor: MessageEditor | None = None
        self.confirmation: QMessageBox | None = None
        self.menu: QMenu | None = None
        self.confirm_delete: Callable[[int], None] = self._ask_before_deleting
        self.popup: Callable[[QMenu, QPoint], None] = lambda menu, at: menu.popup(at)  # tests look instead
        view.viewport().installEventFilter(self)
        view.installEventFilter(self)  # the menu key's context menu goes to the view, not its viewport
        view.viewport().setMouseTracking(True)
        view.verticalScrollBar().valueChanged.connect(lambda _v: self._place_bar())
        view.version_step_requested.connect(self.switch_version)
        self.shortcuts: dict[str, QShortcut] = {}
        owner = shortcuts_on or view
        keys = {"copy": "copy", "edit": "edit", "regenerate": "answer", "continue": "continue",
                "previous": "previous", "next": "next", "delete": "delete"}
        for key, name in keys.items():
            shortcut = QShortcut(QKeySequence(ACTIONS[key].shortcut), owner)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(lambda n=name: self._by_keyboard(n))
            self.shortcuts[name] = shortcut
        keypad = QShortcut(QKeySequence("Ctrl+Shift+Enter"), owner)  # the keypad's Enter continues too
        keypad.setContext(Qt.ShortcutContext.WindowShortcut)
        keypad.activated.connect(lambda: self._by_keyboard("continue"))
        self.shortcuts["continue (keypad)"] = keypad
        for keys_text, step in ((SELECT_PREVIOUS, -1), (SELECT_NEXT, 1)):
            shortcut = QShortcut(QKeySequence(keys_text), owner)
            shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
            shortcut.activated.connect(lambda s=step: self.choose_step(s))
            self.shortcuts[keys_text] = shortcut

    # --- state ----------------------------------------------------------------------------------------
    def set_models(self, models: list[tuple[str, str]]) -> None:
        """The (provider, model) pairs "Regenerate with" offers."""
        self.models = list(models)
        self.bar.set_models(self.models)

    def set_busy(self, busy: bool) -> None:
        self.is_busy = lambda: busy
        self._place_bar()

    def reset(self) -> None:
        """Another conversation is shown: nothing is chosen."""
        self.hovered = self.chosen = None
        self.bar.hide()

    def current(self) -> int | None:
        """The message the bar is over: the one under the mouse, else the one chosen with the keyboard."""
        return self.hovered if self.hovered is not None else self.chosen

    # --- which actions fit a message -----------------------------------------------------------------
    def _question_before(self, index: int) -> ChatMessage | None:
        for message in reversed(self.view.messages()[:index]):
            if message.role == "user":
                return message
        return None

    def _is_last(self, index: int) -> bool:
        return all(m.role in ("error", "notice") for m in self.view.messages()[index + 1:])

    def available(self, index: int | None) -> list[str]:
        """The ACTIONS keys that apply to message ``index``, in the bar's order."""
        messages = self.view.messages()
        if index is None or not 0 <= index < len(messages):
            return []
        message = messages[index]
        keys = ["copy"] if message.text else []
        question = self._question_before(index)
        asked = question is not None and question.ref is not None
        if message.role == "user" and message.ref is not None:
            keys += ["edit", "delete"]
            answered = index + 1 < len(messages) and messages[index + 1].role == "assistant"
            if not answered and self._is_last(index):
                keys.append("retry")
        elif message.role == "assistant":
            if asked:
                keys.append("retry" if message.status == "error" else "regenerate")
            if message.ref is not None:
                keys += ["edit", "delete"]
                if message.status == "interrupted" and self._is_last(index):
                    keys.append("continue")
        elif message.role == "error" and asked and self._is_last(index):
            keys.append("retry")
        if message.ref is not None and message.versions is not None and message.versions[1] > 1:
            position, count = message.versions
            keys += [k for k, live in (("previous", position > 1), ("next", position < count)) if live]
        busy = self.is_busy()
        return [k for k in keys if k == "copy" or not busy]

    # --- doing them -----------------------------------------------------------------------------------
    def trigger(self, key: str, index: int | None) -> None:
        if key not in self.available(index):
            return
        assert index is not None
        message = self.view.messages()[index]
        if key == "copy":
            self.copy(index)
        elif key in ("regenerate", "retry"):
            self._answer_again(index, "", "")
        elif key == "edit":
            self._edit(message)
        elif key == "continue" and message.ref is not None:
            self.continue_answer.emit(message.ref)
        elif key in ("previous", "next") and message.ref is not None:
            self.switch_version.emit(message.ref, -1 if key == "previous" else 1)
        elif key == "delete" and message.ref is not None:
            self.confirm_delete(message.ref)

    def copy(self, index: int) -> None:
        text = self.view.messages()[index].text
        QGuiApplication.clipboard().setText(text)
        self.copied.emit(text)
        status = getattr(self.view.window(), "statusBar", None)
        if callable(status):
            status().showMessage("Copied the message as Markdown.", STATUS_MS)

    def _answer_again(self, index: int | None, provider: str, model: str) -> None:
        if index is None or self.is_busy():
            return
        message = self.view.messages()[index]
        question = message if message.role == "user" else self._question_before(index)
        if question is not None and question.ref is not None:
            self.answer_again.emit(question.ref, provider, model)

    def _edit(self, message: ChatMessage) -> None:
        ref = message.ref
        if ref is None:
            return
        question = message.role == "user"
        editor = MessageEditor(self.view.window(), "Edit the question" if question else "Edit the answer",
                               message.text, "Send as a new version" if question else "Save as a new version",
                               message.attachments if question else ())

        def accepted() -> None:
            if not editor.text().strip():
                return
            if question:
                self.edit_question.emit(ref, editor.text(), editor.kept_attachments())
            else:
                self.edit_answer.emit(ref, editor.text())

        editor.accepted.connect(accepted)
        editor.finished.connect(editor.deleteLater)
        self.editor = editor
        editor.open()
        editor.editor.setFocus()

    def _ask_before_deleting(self, ref: int) -> None:
        box = QMessageBox(QMessageBox.Icon.Question, "Delete question and answer",
                          "Delete this question and its answers (every version of the answer)? What came after "
                          "them stays in the conversation.",
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self.view.window())
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.accepted.connect(lambda: self.delete_pair.emit(ref))
        box.finished.connect(box.deleteLater)
        self.confirmation = box
        box.open()

    # --- keyboard -------------------------------------------------------------------------------------
    def _default_for(self, name: str) -> int | None:
        """The message a shortcut acts on when none is chosen: the last one it fits."""
        for index in range(len(self.view.messages()) - 1, -1, -1):
            if self._fits(name, index):
                return index
        return None

    def _fits(self, name: str, index: int) -> bool:
        keys = self.available(index)
        if name == "answer":
            return "regenerate" in keys or "retry" in keys
        return name in keys

    def _by_keyboard(self, name: str) -> None:
        index = self.chosen if self.chosen is not None and self._fits(name, self.chosen) else self._default_for(name)
        if index is None:
            return
        keys = self.available(index)
        key = name if name != "answer" else ("retry" if "retry" in keys else "regenerate")
        self.trigger(key, index)

    def choose_step(self, step: int) -> None:
        """Alt+Up / Alt+Down: choose the previous / next message (the last one first)."""
        count = len(self.view.messages())
        if count == 0:
            return
        start = self.chosen if self.chosen is not None else count
        self.chosen = min(max(start + step, 0), count - 1)
        self.hovered = None
        rect = self.view.message_rect(self.chosen)
        if rect is not None and (rect.top() < 0 or rect.top() > self.view.viewport().height() - self.bar.height()):
            bar = self.view.verticalScrollBar()
            bar.setValue(bar.value() + rect.top())
        self._place_bar()

    # --- mouse ----------------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.MouseMove and isinstance(event, QMouseEvent):
            self._hover(event.position().toPoint())
        elif kind == QEvent.Type.Leave:
            inside = self.view.viewport().rect().contains(self.view.viewport().mapFromGlobal(QCursor.pos()))
            if not inside:
                self.hovered = None
                self._place_bar()
        elif kind == QEvent.Type.ContextMenu and isinstance(event, QContextMenuEvent):
            keyboard = event.reason() == QContextMenuEvent.Reason.Keyboard
            point = event.pos() if watched is not self.view else self.view.viewport().mapFrom(self.view, event.pos())
            self.show_menu(point, keyboard=keyboard)
            return True
        return False

    def message_at_point(self, point: QPoint) -> int | None:
        """The message at a point of the viewport."""
        index = self.view.message_at(self.view.cursorForPosition(point).position())
        rect = self.view.message_rect(index) if index is not None else None
        return index if rect is not None and rect.top() <= point.y() else None

    def _hover(self, point: QPoint) -> None:
        index = self.message_at_point(point)
        if index != self.hovered:
            self.hovered = index
            self._place_bar()

    def _place_bar(self) -> None:
        index = self.current()
        keys = [k for k in self.available(index) if k in self.bar.buttons]
        rect = self.view.message_rect(index) if index is not None else None
        if not keys or rect is None or rect.bottom() < 0 or rect.top() > self.view.viewport().height():
            self.bar.hide()
            return
        self.bar.show_actions(keys)
        x = self.view.viewport().width() - self.bar.width() - BAR_MARGIN_PX
        label = self.view.label_rect(index) if index is not None else None
        top = rect.top() if label is None else label.bottom() + 1 - self.bar.height()  # level with the label
        y = min(max(top, 0), max(rect.bottom() - self.bar.height(), 0))
        self.bar.move(x, y)
        self.bar.show()
        self.bar.raise_()

    def build_menu(self, index: int | None, menu: QMenu) -> list[QAction]:
        """Add the actions for message ``index`` to ``menu``; returns them (for tests)."""
        added: list[QAction] = []
        for key in self.available(index):
            spec = ACTIONS[key]
            action = menu.addAction(spec.label)
            action.setShortcut(QKeySequence(spec.shortcut))
            action.setData(key)
            action.triggered.connect(lambda _checked=False, k=key, i=index: self.trigger(k, i))
            added.append(action)
            if key == "regenerate" and self.models:
                others = menu.addMenu("Regenerate with")
                for provider, model in self.models:
                    choice = others.addAction(f"{provider} · {model}" if model else provider)
                    choice.triggered.connect(lambda _c=False, p=provider, m=model, i=index:
                                             self._answer_again(i, p, m))
        return added

    def show_menu(self, point: QPoint, *, keyboard: bool = False) -> QMenu:
        """The chat's context menu: copying the selection, then the actions of the message there."""
        index = self.current() if keyboard else self.message_at_point(point)
        if keyboard and index is None:
            index = self._default_for("copy")
        if keyboard and index is not None:
            rect = self.view.message_rect(index)
            if rect is not None:
                point = QPoint(rect.left() + 40, max(rect.top(), 0) + 20)
        menu = self.view.createStandardContextMenu(point)
        if self.available(index):
            menu.addSeparator()
            self.build_menu(index, menu)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.menu = menu
        self.popup(menu, self.view.viewport().mapToGlobal(point))
        return menu
