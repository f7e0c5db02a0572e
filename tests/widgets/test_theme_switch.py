"""A theme switch reaches what was drawn before it: links, tool chips, reasoning text, dialogs and tooltips."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QTimer
from PySide6.QtGui import QColor, QFont, QPalette, QTextDocument
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox, QToolTip, QWidget

from orchestration.events import EventFactory
from tests.support.run_script import RunScript
from tests.widgets.test_chat_view import feed, make_view, tool_events
from tests.widgets.test_theme import themed_app  # noqa: F401  (the fixture)
from widgets.conversation_list import delete_confirmation, rename_dialog
from widgets.reasoning_pane import ReasoningPane
from widgets.theme import apply_theme, palette_for


def anchor_colours(document: QTextDocument) -> dict[str, str]:
    """Each linked text fragment and the colour it is drawn in."""
    found: dict[str, str] = {}
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.charFormat().isAnchor():
                found[fragment.text()] = fragment.charFormat().foreground().color().name()
            fragments += 1
        block = block.next()
    return found


def luminance(colour: QColor) -> float:
    return 0.2126 * colour.redF() + 0.7152 * colour.greenF() + 0.0722 * colour.blueF()


def test_links_and_chips_drawn_before_a_switch_take_the_new_link_colour(qtbot, themed_app):  # noqa: F811
    apply_theme(themed_app, "light")
    view = make_view(qtbot)
    f = EventFactory(run_id="r1")
    feed(view, [*tool_events(f, "call-1", "calculator", "primary")])
    view.append_content("See [the docs](https://example.org/docs).")
    view.flush()
    light_link = palette_for("light").color(QPalette.ColorRole.Link).name()
    assert set(anchor_colours(view.document()).values()) == {light_link}

    apply_theme(themed_app, "dark")
    view.set_dark(True)  # what the main window does on every theme change

    dark_link = palette_for("dark").color(QPalette.ColorRole.Link).name()
    colours = anchor_colours(view.document())
    assert "the docs" in colours and "calculator" in colours
    assert set(colours.values()) == {dark_link}


def test_reasoning_of_an_earlier_phase_stays_body_text_after_a_switch(qtbot, themed_app):  # noqa: F811
    apply_theme(themed_app, "light")
    pane = ReasoningPane()
    qtbot.addWidget(pane)
    pane.show()
    script = RunScript()
    pane.handle_event(script.started())
    pane.handle_event(script.reasoning("First I should search."))
    script.next_call()
    pane.handle_event(script.reasoning("Now I can answer."))
    qtbot.waitUntil(lambda: pane.phase_count() == 2, timeout=2000)

    apply_theme(themed_app, "dark")
    qtbot.waitUntil(lambda: pane.palette().color(QPalette.ColorRole.Text).name() == "#e4e6ea", timeout=2000)

    text_colour = palette_for("dark").color(QPalette.ColorRole.Text).name()
    document = pane.findChild(QWidget, "reasoningView").document()
    block = document.begin()
    seen = []
    while block.isValid():
        if block.text().startswith(("First", "Now")):
            char_format = block.begin().fragment().charFormat()
            seen.append(block.text())
            assert char_format.fontWeight() == QFont.Weight.Normal, block.text()
            assert char_format.foreground().color().name() == text_colour, block.text()
        block = block.next()
    assert seen == ["First I should search.", "Now I can answer."]


def test_delete_confirmation_is_drawn_dark_in_dark_mode_and_defaults_to_no(qtbot, themed_app):  # noqa: F811
    apply_theme(themed_app, "dark")
    box = delete_confirmation(None, "Trip plans")
    qtbot.addWidget(box)
    assert box.testOption(QMessageBox.Option.DontUseNativeDialog), "a native dialog ignores the app's theme"
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.No)
    box.show()
    qtbot.waitExposed(box)
    image = box.grab().toImage()
    assert luminance(image.pixelColor(4, 4)) < 0.2
    label = next(lbl for lbl in box.findChildren(QLabel) if "Trip plans" in lbl.text())
    assert luminance(label.palette().color(label.foregroundRole())) > 0.7


def test_pressing_enter_on_the_delete_confirmation_does_not_delete(qtbot, themed_app):  # noqa: F811
    box = delete_confirmation(None, "Trip plans")
    qtbot.addWidget(box)
    QTimer.singleShot(0, lambda: qtbot.keyClick(box, "\r"))
    assert box.exec() == QMessageBox.StandardButton.No


@pytest.mark.qt_log_ignore("This plugin does not support raise")
def test_tooltips_are_dark_in_dark_mode(qtbot, themed_app):  # noqa: F811
    apply_theme(themed_app, "dark")
    anchor = QWidget()
    qtbot.addWidget(anchor)
    anchor.show()
    QToolTip.showText(QPoint(10, 10), "Copy the last answer", anchor)
    tip = next(w for w in QApplication.topLevelWidgets() if w.metaObject().className() == "QTipLabel")
    qtbot.waitExposed(tip)
    image = tip.grab().toImage()
    background = image.pixelColor(image.width() // 2, 2)
    QToolTip.hideText()
    assert luminance(background) < 0.25, background.name()


def test_rename_dialog_is_wide_enough_for_its_title(qtbot):
    dialog = rename_dialog(None, "Trip plans")
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    title_width = dialog.fontMetrics().horizontalAdvance(dialog.windowTitle())
    # window decorations take roughly 150 px for their buttons and margins
    assert dialog.width() >= title_width + 150
    assert dialog.textValue() == "Trip plans"


def test_chat_font_size_survives_a_theme_switch(qtbot, themed_app):  # noqa: F811
    apply_theme(themed_app, "light")
    view = make_view(qtbot)
    view.show()
    qtbot.waitExposed(view)
    view.set_font_size(16)
    apply_theme(themed_app, "dark")  # a new style sheet re-polishes every widget
    view.add_user_message("hello")
    assert view.font().pointSize() == 16
    assert view.document().defaultFont().pointSize() == 16
