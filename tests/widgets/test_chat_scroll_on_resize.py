"""The chat stays at its bottom when the window's columns change under it (the inspector drawer opening and
closing, the window resized), if it was at the bottom; scrolled up, it keeps showing what it showed."""

from __future__ import annotations

from tests.support.main_window import exposed_main_window
from widgets.chat_view import ChatMessage
from widgets.main_window import MainWindow

LONG = ("A paragraph long enough to wrap differently when the chat column changes width, so the "
        "conversation grows or shrinks as the drawer opens and closes. ") * 4


def window_with_a_long_chat(qtbot) -> MainWindow:
    window = exposed_main_window(qtbot, 1280, 820)
    window.chat_view.set_messages([ChatMessage("user" if i % 2 == 0 else "assistant", f"{i}: {LONG}")
                                   for i in range(40)])
    window.chat_view.scroll_to_bottom()
    qtbot.wait(20)
    return window


def at_bottom(window: MainWindow) -> bool:
    bar = window.chat_view.verticalScrollBar()
    return bar.maximum() > 0 and bar.value() == bar.maximum()


def test_closing_the_inspector_keeps_the_chat_at_its_bottom(qtbot):
    window = window_with_a_long_chat(qtbot)
    assert at_bottom(window)
    window.toggle_inspector()
    qtbot.wait(50)
    assert at_bottom(window)
    window.toggle_inspector()
    qtbot.waitUntil(lambda: not window.inspector.isVisible())
    qtbot.wait(50)  # the columns have their widths back and the chat has been laid out again
    assert at_bottom(window)


def test_closing_the_inspector_with_its_own_button_keeps_the_chat_at_its_bottom(qtbot):
    window = window_with_a_long_chat(qtbot)
    window.toggle_inspector()
    qtbot.wait(50)
    window.inspector.close()
    qtbot.wait(50)
    assert at_bottom(window)


def test_a_narrower_or_wider_window_keeps_the_chat_at_its_bottom(qtbot):
    window = window_with_a_long_chat(qtbot)
    for width in (900, 1500, 1100):
        window.resize(width, 820)
        qtbot.wait(30)
        assert at_bottom(window), width


def test_a_chat_scrolled_up_is_not_pulled_to_the_bottom(qtbot):
    window = window_with_a_long_chat(qtbot)
    bar = window.chat_view.verticalScrollBar()
    bar.setValue(bar.maximum() // 3)
    window.toggle_inspector()
    qtbot.wait(50)
    window.toggle_inspector()
    qtbot.wait(50)
    assert bar.value() < bar.maximum() // 2


def test_the_drawer_lays_the_chat_out_once_not_at_every_width_on_the_way(qtbot):
    """User pass 4: opening the inspector on a heavy conversation took 2 to 3 s, as the chat was laid out again
    at each of 4 to 6 widths the drawer passed through while making room (and at 1,060 px on the way back)."""
    window = window_with_a_long_chat(qtbot)
    widths: list[float] = []
    window.chat_view.document().documentLayout().documentSizeChanged.connect(lambda size: widths.append(size.width()))
    window.toggle_inspector()
    qtbot.wait(50)
    assert len(set(widths)) <= 2, widths  # the final width (and a settling of a few px), no passing ones
    assert at_bottom(window)
    widths.clear()
    window.toggle_inspector()
    qtbot.waitUntil(lambda: not window.inspector.isVisible())
    qtbot.wait(50)
    assert len(set(widths)) <= 2, widths
    assert at_bottom(window)
