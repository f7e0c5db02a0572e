"""The per-message actions in a real chat view with pytest-qt: the bar over the hovered message, copying a
message and a code block to the clipboard, the ‹ › switcher, the shortcuts, the editor, the delete
confirmation and the context menu's entries."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QContextMenuEvent, QGuiApplication, QTextCursor
from PySide6.QtWidgets import QApplication, QMenu, QMessageBox, QVBoxLayout, QWidget

from widgets.chat_view import ChatMessage, ChatView
from widgets.markdown_document import COPY_URL
from widgets.message_actions import MessageActions

CODE_ANSWER = "Use this:\n\n```python\nprint('otters')\n```\n\nThat is all."


def conversation() -> list[ChatMessage]:
    return [ChatMessage("user", "How do I greet otters?", ref=1, versions=(2, 2)),
            ChatMessage("assistant", CODE_ANSWER, ref=2),
            ChatMessage("user", "And in **bold**?", ref=3),
            ChatMessage("assistant", "Like **this", ref=4, status="interrupted", versions=(1, 3))]


def make(qtbot, messages: list[ChatMessage] | None = None) -> tuple[QWidget, ChatView, MessageActions]:
    window = QWidget()
    layout = QVBoxLayout(window)
    view = ChatView()
    layout.addWidget(view)
    qtbot.addWidget(window)
    window.resize(700, 700)
    actions = MessageActions(view, window)
    view.set_messages(conversation() if messages is None else messages)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    view.setFocus()
    return window, view, actions


def point_in(view: ChatView, index: int) -> QPoint:
    rect = view.message_rect(index)
    assert rect is not None
    return QPoint(rect.left() + 60, rect.top() + 8)


def link_point(view: ChatView, href_start: str) -> QPoint:
    """The viewport point of the first link whose href starts with ``href_start``."""
    block = view.document().begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.charFormat().anchorHref().startswith(href_start):
                cursor = QTextCursor(view.document())
                cursor.setPosition(fragment.position())
                left = view.cursorRect(cursor)
                cursor.setPosition(fragment.position() + fragment.length())
                return QPoint((left.center().x() + view.cursorRect(cursor).center().x()) // 2, left.center().y())
            fragments += 1
        block = block.next()
    raise AssertionError(f"no link {href_start}")


def test_the_bar_follows_the_mouse_and_copies_the_message_as_markdown(qtbot):
    _window, view, actions = make(qtbot)
    qtbot.mouseMove(view.viewport(), point_in(view, 2))
    qtbot.waitUntil(lambda: actions.bar.isVisible())
    assert actions.hovered == 2
    visible = [k for k, b in actions.bar.buttons.items() if b.isVisibleTo(actions.bar)]
    assert visible == ["copy", "edit", "delete"]
    qtbot.mouseClick(actions.bar.buttons["copy"], Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == "And in **bold**?"

    qtbot.mouseMove(view.viewport(), point_in(view, 3))
    qtbot.waitUntil(lambda: actions.hovered == 3)
    visible = [k for k, b in actions.bar.buttons.items() if b.isVisibleTo(actions.bar)]
    assert visible == ["copy", "edit", "regenerate", "continue", "delete"]
    assert actions.bar.geometry().bottom() == view.label_rect(3).bottom(), "level with the Assistant label"


def test_a_code_blocks_copy_link_copies_only_its_code(qtbot):
    _window, view, _actions = make(qtbot)
    QGuiApplication.clipboard().setText("")
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=link_point(view, COPY_URL))
    assert QGuiApplication.clipboard().text() == "print('otters')"


def test_the_switcher_shows_position_and_asks_for_the_neighbour(qtbot):
    _window, view, actions = make(qtbot)
    assert "You   ‹ 2/2 ›" in view.toPlainText().replace("\u00a0", " ")
    assert "Assistant   ‹ 1/3 ›" in view.toPlainText().replace("\u00a0", " ")
    with qtbot.waitSignal(actions.switch_version) as switched:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=link_point(view, "parley-version:4:1"))
    assert switched.args == [4, 1]
    with qtbot.waitSignal(actions.switch_version) as switched:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=link_point(view, "parley-version:1:-1"))
    assert switched.args == [1, -1]


def test_shortcuts_act_on_the_last_fitting_message_or_the_chosen_one(qtbot):
    _window, view, actions = make(qtbot)
    with qtbot.waitSignal(actions.answer_again) as again:
        qtbot.keyClick(view, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert again.args == [3, "", ""], "the last answer's question"
    with qtbot.waitSignal(actions.continue_answer) as continued:
        qtbot.keyClick(view, Qt.Key.Key_Return,
                       Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert continued.args == [4]
    with qtbot.waitSignal(actions.continue_answer):
        qtbot.keyClick(view, Qt.Key.Key_Enter, Qt.KeyboardModifier.ControlModifier
                       | Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.KeypadModifier)
    with qtbot.waitSignal(actions.switch_version) as switched:
        qtbot.keyClick(view, Qt.Key.Key_Right, Qt.KeyboardModifier.AltModifier)
    assert switched.args == [4, 1]
    for _ in range(3):  # the last, then two up: the first answer
        qtbot.keyClick(view, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
    assert actions.chosen == 1 and actions.bar.isVisible()
    with qtbot.waitSignal(actions.answer_again) as again:
        qtbot.keyClick(view, Qt.Key.Key_R, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert again.args == [1, "", ""]
    qtbot.keyClick(view, Qt.Key.Key_M, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert QGuiApplication.clipboard().text() == CODE_ANSWER


def test_editing_a_question_sends_the_new_text_and_an_answer_keeps_it(qtbot):
    _window, _view, actions = make(qtbot)
    actions.trigger("edit", 2)
    assert actions.editor is not None and actions.editor.text() == "And in **bold**?"
    actions.editor.editor.setPlainText("And in italics?")
    with qtbot.waitSignal(actions.edit_question) as edited:
        qtbot.mouseClick(actions.editor.ok_button, Qt.MouseButton.LeftButton)
    assert edited.args == [3, "And in italics?", []]

    actions.trigger("edit", 3)
    actions.editor.editor.setPlainText("")
    assert not actions.editor.ok_button.isEnabled(), "an empty edit cannot be saved"
    actions.editor.editor.setPlainText("Like *this*.")
    actions.editor.activateWindow()
    qtbot.waitUntil(actions.editor.isActiveWindow, timeout=3000)
    with qtbot.waitSignal(actions.edit_answer) as edited:
        qtbot.keyClick(actions.editor.editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert edited.args == [4, "Like *this*."]


def test_delete_asks_first(qtbot):
    _window, _view, actions = make(qtbot)
    with qtbot.assertNotEmitted(actions.delete_pair):
        actions.trigger("delete", 1)
        actions.confirmation.button(QMessageBox.StandardButton.Cancel).click()
    with qtbot.waitSignal(actions.delete_pair) as deleted:
        actions.trigger("delete", 1)
        actions.confirmation.button(QMessageBox.StandardButton.Yes).click()
    assert deleted.args == [2]


def test_errors_offer_retry_and_nothing_changes_while_a_run_streams(qtbot):
    messages = [ChatMessage("user", "Hi", ref=7), ChatMessage("error", "The server said no (HTTP 500)")]
    _window, _view, actions = make(qtbot, messages)
    assert actions.available(1) == ["copy", "retry"]
    assert "retry" in actions.available(0), "an unanswered last question can be asked again"
    with qtbot.waitSignal(actions.answer_again) as again:
        actions.trigger("retry", 1)
    assert again.args == [7, "", ""]
    actions.set_busy(True)
    assert actions.available(0) == ["copy"] and actions.available(1) == ["copy"]


def test_the_context_menu_lists_the_messages_actions_and_other_models(qtbot):
    _window, _view, actions = make(qtbot)
    actions.set_models([("local", "m"), ("other", "big")])
    menu = QMenu()
    entries = actions.build_menu(3, menu)
    assert [a.data() for a in entries] == ["copy", "regenerate", "edit", "delete", "continue", "next"]
    assert entries[1].shortcut().toString() == "Ctrl+Shift+R"
    others = next(a.menu() for a in menu.actions() if a.menu() is not None)
    with qtbot.waitSignal(actions.answer_again) as again:
        others.actions()[1].trigger()
    assert again.args == [3, "other", "big"]
    assert actions.build_menu(None, QMenu()) == []


def test_the_menu_key_opens_the_chosen_messages_actions(qtbot):
    _window, view, actions = make(qtbot)
    shown: list[QMenu] = []
    actions.popup = lambda menu, _at: shown.append(menu)  # offscreen cannot grab the keyboard for a real popup
    qtbot.keyClick(view, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)  # the last message
    QApplication.sendEvent(view, QContextMenuEvent(QContextMenuEvent.Reason.Keyboard, QPoint(5, 5),
                                                   view.mapToGlobal(QPoint(5, 5))))
    assert shown == [actions.menu]
    keys = [a.data() for a in actions.menu.actions() if a.data()]
    assert keys == ["copy", "regenerate", "edit", "delete", "continue", "next"]
    actions.menu.close()


def test_a_right_click_lists_the_clicked_messages_actions_after_the_standard_ones(qtbot):
    _window, view, actions = make(qtbot)
    shown: list[QMenu] = []
    actions.popup = lambda menu, _at: shown.append(menu)
    at = point_in(view, 0)
    QApplication.sendEvent(view.viewport(), QContextMenuEvent(QContextMenuEvent.Reason.Mouse, at,
                                                              view.viewport().mapToGlobal(at)))
    (menu,) = shown
    texts = [a.text() for a in menu.actions() if not a.isSeparator()]
    assert any("Copy" in t for t in texts[:2]), "the standard entries come first"
    assert [a.data() for a in menu.actions() if a.data()] == ["copy", "edit", "delete", "previous"]
