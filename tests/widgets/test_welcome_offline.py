"""The welcome's note about answering offline with the built-in engine: shown as plain text (never as markup),
kept beside the notice and the local-server search result, and gone when set to ""."""

from __future__ import annotations

from widgets.main_window import Welcome


def test_the_offline_note_is_plain_text_and_can_be_removed(qtbot) -> None:
    welcome = Welcome()
    qtbot.addWidget(welcome)
    welcome.set_offline_note("Runs <b>SmolLM2</b>, a tiny demo model & more.")
    shown = welcome.text.text()
    assert "Runs &lt;b&gt;SmolLM2&lt;/b&gt;, a tiny demo model &amp; more." in shown
    welcome.set_servers([])  # the local-server search ends: the note stays
    assert "tiny demo model" in welcome.text.text()
    welcome.show_notice("No provider is set up.")
    assert "tiny demo model" in welcome.text.text()
    welcome.set_offline_note("")
    assert "tiny demo model" not in welcome.text.text()
