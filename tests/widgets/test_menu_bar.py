"""The menu bar: File, Edit, View and Help reuse the window's handlers, ask the app through signals, and carry
the window's shortcuts."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence

from tests.support.main_window import active_main_window


def test_the_four_menus_and_their_shortcuts(qtbot):
    window = active_main_window(qtbot)
    titles = [action.text() for action in window.menuBar().actions()]
    assert titles == ["&File", "&Edit", "&View", "&Help"]
    menus = window.menus
    assert menus.quit.shortcut() == QKeySequence("Ctrl+Q") and menus.new_chat.shortcut() == QKeySequence("Ctrl+N")
    assert menus.inspector.shortcut() == QKeySequence("Ctrl+I") and menus.find.shortcut() == QKeySequence("Ctrl+K")
    with qtbot.waitSignal(menus.quit_requested):
        qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    with qtbot.waitSignal(window.conversations.new_chat_requested):
        menus.new_chat.trigger()
    with qtbot.waitSignal(menus.import_requested):
        menus.import_conversation.trigger()


def test_export_needs_an_open_conversation_and_says_which_format(qtbot):
    window = active_main_window(qtbot)
    menus = window.menus
    assert not menus.export_markdown.isEnabled() and not menus.export_json.isEnabled()
    menus.set_conversation_open(True)
    with qtbot.waitSignal(menus.export_requested) as markdown:
        menus.export_markdown.trigger()
    with qtbot.waitSignal(menus.export_requested) as as_json:
        menus.export_json.trigger()
    assert (markdown.args, as_json.args) == (["markdown"], ["json"])


def test_edit_acts_on_the_focused_field_and_find_focuses_the_search_box(qtbot):
    window = active_main_window(qtbot)
    field = window.composer.input_widget()
    field.setFocus()
    qtbot.waitUntil(field.hasFocus)
    QGuiApplication.clipboard().setText("pasted words")
    window.menus.paste.trigger()
    assert field.toPlainText() == "pasted words"
    window.menus.select_all.trigger()
    QGuiApplication.clipboard().clear()
    window.menus.copy.trigger()
    assert QGuiApplication.clipboard().text() == "pasted words"
    window.menus.find.trigger()
    assert window.conversations.search_box.hasFocus()


def test_view_shows_and_hides_the_panes_and_the_inspector_and_picks_a_theme(qtbot):
    window = active_main_window(qtbot)
    menus = window.menus
    menus.search_results.trigger()  # checked: the panes on the search results tab
    assert window.panes.isVisible() and window.panes.currentWidget() is window.search_pane
    menus.sync_view()
    assert menus.search_results.isChecked() and not menus.reasoning.isChecked()
    menus.search_results.trigger()  # unchecked: the panes are put away
    assert not window.panes.isVisible()
    menus.reasoning.trigger()
    assert window.panes.isVisible() and window.panes.currentWidget() is window.reasoning_pane
    menus.inspector.trigger()
    assert window.inspector.isVisible()
    menus.inspector.trigger()
    assert not window.inspector.isVisible() and window.panes.isVisible()
    with qtbot.waitSignal(menus.theme_requested) as chosen:
        menus.theme_actions["dark"].trigger()
    assert chosen.args == ["dark"]
    menus.set_theme("light")
    assert menus.theme_actions["light"].isChecked() and not menus.theme_actions["dark"].isChecked()


def test_hidden_panes_stay_hidden_after_the_inspector_closes(qtbot):
    window = active_main_window(qtbot)
    window.menus.reasoning.trigger()
    window.menus.reasoning.trigger()
    assert not window.panes.isVisible()
    window.toggle_inspector()
    window.toggle_inspector()
    assert not window.panes.isVisible()


def test_help_lists_the_shortcuts_and_about_names_the_version(qtbot):
    window = active_main_window(qtbot)
    box = window.menus.show_shortcuts()
    assert box.isVisible() and "Ctrl+Q" in box.text() and "Ctrl+I" in box.text()
    box.close()
    window.menus.version = "1.2.3<b>"
    about = window.menus.show_about()
    assert "Parley 1.2.3&lt;b&gt;" in about.text()
    about.close()


def test_about_reads_the_version_when_it_opens(qtbot):
    """The app hands over a lookup (importlib.metadata is about 3.5 MB the idle window does not need)."""
    window = active_main_window(qtbot)
    asked: list[int] = []
    window.menus.version_lookup = lambda: asked.append(1) or "4.5.6"
    assert asked == []
    about = window.menus.show_about()
    assert "Parley 4.5.6" in about.text() and asked == [1]
    about.close()


def test_files_can_be_attached_from_the_keyboard(qtbot):
    """User pass 4: attaching needed the mouse (the composer's paper clip); File > Attach files… is Ctrl+Shift+A."""
    window = active_main_window(qtbot)
    assert window.menus.attach.shortcut() == QKeySequence("Ctrl+Shift+A")
    with qtbot.waitSignal(window.composer.attach_requested, timeout=2000):
        qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_A,
                       Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
