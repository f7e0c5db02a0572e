"""Showing another conversation while an answer streams: nothing of the streaming answer reaches it."""

from __future__ import annotations

from orchestration.events import ContentDelta, EventFactory, RunStarted
from tests.widgets.test_chat_view import feed, make_view
from widgets.chat_view import ChatMessage


def test_text_queued_for_the_next_frame_does_not_land_in_the_conversation_shown_next(qtbot):
    view = make_view(qtbot, frame_ms=5)
    f = EventFactory("r")
    feed(view, [f.make(RunStarted, provider="p", model="m"), f.make(ContentDelta, content="Paragraph one.\n\n")])
    view.flush()
    view.handle_event(f.make(ContentDelta, content="Paragraph two streams on"))  # queued for the next frame

    view.set_messages([ChatMessage("user", "About otters"), ChatMessage("assistant", "Otters crack shells.")])
    qtbot.wait(50)  # several frames
    view.flush()

    assert "Paragraph" not in view.toPlainText()
    assert view.toPlainText().rstrip().endswith("Otters crack shells.")
    assert not view.streaming
