"""StatusLine on its own: short messages whole, long ones elided at word boundaries keeping their end, the
fallback for one long word, the bounded history, and the tooltip following the message."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QMainWindow

from widgets.status_line import ELLIPSIS, HISTORY_LIMIT, StatusLine, elide_words

NOTE = "Imported “Trip notes” (12 messages). Cut 1 attachment name longer than 255 characters to fit the file system."


def in_window(qtbot, width: int) -> tuple[QMainWindow, StatusLine]:
    """A StatusLine as the window uses it: the status bar of a shown QMainWindow ``width`` px wide."""
    window = QMainWindow()
    qtbot.addWidget(window)
    bar = StatusLine()
    window.setStatusBar(bar)
    window.resize(width, 200)
    window.show()
    qtbot.waitExposed(window)
    return window, bar


def test_short_message_is_drawn_whole(qtbot):
    bar = StatusLine()
    qtbot.addWidget(bar)
    bar.resize(900, 30)
    bar.showMessage("Copied the last answer.", 3000)
    assert bar.shown_text() == "Copied the last answer."
    assert bar.toolTip() == "Copied the last answer."


def test_long_message_keeps_whole_words_and_its_end(qtbot):
    bar = StatusLine()
    qtbot.addWidget(bar)
    metrics = bar.fontMetrics()
    width = metrics.horizontalAdvance(NOTE) // 2
    shown = elide_words(NOTE, metrics, width)
    assert metrics.horizontalAdvance(shown) <= width
    start, _, end = shown.partition(ELLIPSIS)
    assert start.endswith(" ") and end.startswith(" "), shown  # cut between words, not inside one
    assert NOTE.startswith(start) and NOTE.endswith(end) and end.endswith("file system."), shown
    assert len(end) > len(start) - 5, shown  # the end (what happened) gets the larger share


def test_one_long_word_falls_back_to_middle_elision(qtbot):
    bar = StatusLine()
    qtbot.addWidget(bar)
    metrics = bar.fontMetrics()
    word = "x" * 300
    shown = elide_words(word, metrics, 120)
    assert ELLIPSIS in shown and metrics.horizontalAdvance(shown) <= 120


def test_message_stops_before_permanent_widgets_and_history_is_bounded(qtbot):
    _window, bar = in_window(qtbot, 600)
    label = QLabel("Keyring: Secret Service · Today $0.00 · Month $0.00")
    bar.addPermanentWidget(label)
    qtbot.wait(20)
    for n in range(HISTORY_LIMIT + 5):
        bar.showMessage(f"message {n} {NOTE}", 0)
    assert bar.message_rect().right() < label.x()
    assert bar.fontMetrics().horizontalAdvance(bar.shown_text()) <= bar.message_rect().width()
    texts = [record.text for record in bar.history()]
    assert len(texts) == HISTORY_LIMIT and texts[0].startswith("message 5 ") and texts[-1] == bar.currentMessage()
    assert f"message {HISTORY_LIMIT + 4} " in bar.history_text()
    bar.clearMessage()
    assert bar.toolTip() == "" and bar.shown_text() == ""
    assert len(bar.history()) == HISTORY_LIMIT  # a cleared message can still be read again


def test_context_menu_copies_the_whole_message_and_opens_the_history(qtbot):
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication, QDialog, QPlainTextEdit

    bar = StatusLine()
    qtbot.addWidget(bar)
    bar.resize(300, 30)
    bar.showMessage(NOTE, 0)
    menu = bar.context_menu()
    copy, recent = menu.actions()
    assert copy.isEnabled() and recent.isEnabled()
    copy.trigger()
    assert QGuiApplication.clipboard().text() == NOTE
    recent.trigger()
    dialogs = [w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible()]
    assert len(dialogs) == 1 and NOTE in dialogs[0].findChild(QPlainTextEdit).toPlainText()
    dialogs[0].close()
    menu.close()


def test_right_to_left_room_is_right_of_the_permanent_widgets(qtbot):
    from PySide6.QtCore import Qt

    _window, bar = in_window(qtbot, 600)
    _window.setLayoutDirection(Qt.LayoutDirection.RightToLeft)
    label = QLabel("Keyring: Secret Service · Today $0.00")
    bar.addPermanentWidget(label)
    qtbot.wait(20)
    bar.showMessage(NOTE, 0)
    room = bar.message_rect()
    assert room.left() > label.x() + label.width() and room.right() <= bar.width()
    assert bar.fontMetrics().horizontalAdvance(bar.shown_text()) <= room.width()


def test_the_text_drawn_is_the_elided_text_not_a_clipped_one(qtbot):
    """Pixels of the real bar: the message's ink ends where the elided text ends, short of the permanent label
    (Qt's own drawing ran the whole text up to the label's edge and clipped it there)."""
    window, bar = in_window(qtbot, 640)
    label = QLabel("Keyring: Secret Service · Today $0.00 · Month $0.00")
    bar.addPermanentWidget(label)
    words = "Attachment names cut: quarterly, budgeting, appendices, estimates, forecasts, summarised."
    # The fonts in use (the platform's, or one an earlier test gave the application) decide where the words
    # break: widen the window until the elided text leaves a gap before the label, so clipped and elided differ.
    for width in range(640, 1400, 6):
        window.resize(width, 200)
        qtbot.wait(10)
        bar.showMessage(words, 0)
        room = bar.message_rect()
        gap = room.width() - bar.fontMetrics().horizontalAdvance(bar.shown_text())
        if gap >= 15 and bar.shown_text() != words and bar.shown_text().endswith(" summarised."):
            break
    image = bar.grab().toImage()
    background = image.pixelColor(room.left() - 3, image.height() // 2).lightness()  # left of the text
    ink = [x for x in range(room.left(), label.x())
           if any(abs(image.pixelColor(x, y).lightness() - background) > 80 for y in range(image.height()))]
    drawn = bar.fontMetrics().horizontalAdvance(bar.shown_text())
    assert ink, "no message drawn"
    assert room.width() - drawn >= 15, "the words must leave a gap for this test"
    assert max(ink) <= room.left() + drawn + 1
    assert max(ink) >= room.left() + drawn - bar.fontMetrics().horizontalAdvance("..")  # the end is drawn
    assert bar.shown_text().endswith("summarised.")


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # the offscreen platform cannot raise windows
def test_recent_messages_asked_again_refills_the_open_window(qtbot, tmp_path):
    from PySide6.QtWidgets import QPlainTextEdit

    _window, bar = in_window(qtbot, 600)
    bar.showMessage("First note.", 0)
    first = bar.show_history()
    bar.showMessage("Second note.", 0)
    again = bar.show_history()
    assert again is first
    assert again.findChild(QPlainTextEdit).toPlainText().endswith("Second note.")
    again.grab().save(str(tmp_path / "status-history.png"))
    again.close()


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # QToolTip raises its window; offscreen cannot
def test_the_tooltip_shows_over_the_message_not_over_the_labels(qtbot):
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    _window, bar = in_window(qtbot, 600)
    label = QLabel("OpenRouter · anthropic/claude-sonnet-4.5")
    bar.addPermanentWidget(label)
    qtbot.wait(20)
    bar.showMessage(NOTE, 0)

    def hover(x: int) -> None:
        point = QPoint(x, bar.height() // 2)
        QApplication.sendEvent(bar, QHelpEvent(QEvent.Type.ToolTip, point, bar.mapToGlobal(point)))

    hover(bar.message_rect().center().x())
    qtbot.waitUntil(QToolTip.isVisible)
    assert QToolTip.text() == NOTE
    hover(label.geometry().center().x())
    qtbot.waitUntil(lambda: not QToolTip.isVisible())
