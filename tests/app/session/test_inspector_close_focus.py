"""Closing the run inspector with Ctrl+I gives the keyboard back to the composer (found in the user pass).

Qt passed the focus from the closed drawer to the next widget in the chain, the New chat button: the next
words typed were lost and their first space started a new conversation.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app.secrets.store import SecretStore
from app.session.gui import build_window
from tests.support.memory_keyring import MemoryKeyring


def test_ctrl_i_twice_leaves_the_keyboard_in_the_composer(qtbot, qasync_loop, parley_home):
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)  # window shortcuts need an active window
    composer = window.composer.input_widget()
    composer.setFocus()
    qtbot.keyClick(composer, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(window.inspector.isVisible, timeout=3000)
    focused = QApplication.focusWidget()
    assert focused is not None and window.inspector.isAncestorOf(focused)  # the drawer took the keyboard
    qtbot.keyClick(focused, Qt.Key.Key_I, Qt.KeyboardModifier.ControlModifier)
    assert not window.inspector.isVisible()
    assert QApplication.focusWidget() is composer
    qtbot.keyClicks(QApplication.focusWidget(), "what ")
    assert window.composer.text() == "what "
    session.history.close()
