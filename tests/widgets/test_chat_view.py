"""The chat view fed by scripted run events: streaming render, tool chips, errors, history pages, links."""

from __future__ import annotations

from PySide6.QtCore import QUrl

from orchestration.events import (
    ContentDelta,
    Done,
    EventFactory,
    RunError,
    RunStarted,
    ToolCallInfo,
    ToolCalls,
    ToolExecuting,
    ToolResult,
)
from widgets.chat_view import PAGE_SIZE, ChatMessage, ChatView
from widgets.markdown_render import render_markdown
from widgets.tool_chip_text import ToolChip

ANSWER = "# Result\n\nHere is a list:\n\n- one\n- two\n\n```python\nprint('hi')\n```\n\nDone.\n"


def make_view(qtbot, **kwargs) -> ChatView:
    view = ChatView(**kwargs)
    qtbot.addWidget(view)
    view.resize(600, 400)
    return view


def feed(view: ChatView, events) -> None:
    for event in events:
        view.handle_event(event)


def tool_events(f: EventFactory, call_id: str, name: str, visibility: str, result: str = "42") -> list:
    return [
        f.make(ToolCalls, calls=[ToolCallInfo(id=call_id, name=name, arguments='{"expression": "6*7"}')]),
        f.make(ToolExecuting, id=call_id, name=name, category="utility", visibility=visibility),
        f.make(ToolResult, id=call_id, name=name, result=result, status="ok", duration_ms=3, category="utility",
               visibility=visibility),
    ]


def test_streamed_answer_renders_like_a_full_render(qtbot):
    view = make_view(qtbot)
    f = EventFactory("r")
    feed(view, [f.make(RunStarted, provider="p", model="m")])
    for i in range(0, len(ANSWER), 5):
        view.handle_event(f.make(ContentDelta, content=ANSWER[i:i + 5]))
        if i % 20 == 0:
            view.flush()
    feed(view, [f.make(Done, finish_reason="stop")])
    text = view.toPlainText()
    assert text.startswith("Assistant\n")
    assert text[len("Assistant\n"):] == render_markdown(ANSWER).toPlainText()
    assert not view.streaming


def test_text_is_rendered_per_frame_not_per_event(qtbot):
    view = make_view(qtbot, frame_ms=16)
    view.begin_assistant()
    view.append_content("Hello ")
    view.append_content("world")
    assert "Hello" not in view.toPlainText()  # queued until the frame timer fires
    qtbot.waitUntil(lambda: "Hello world" in view.toPlainText(), timeout=1000)


def test_chips_for_visible_tools_only_and_they_expand(qtbot):
    view = make_view(qtbot)
    f = EventFactory("r")
    feed(view, [f.make(RunStarted, provider="p", model="m"), f.make(ContentDelta, content="Let me check.")])
    feed(view, tool_events(f, "c1", "calculate", "hidden"))
    feed(view, tool_events(f, "c2", "web_search", "primary", result="three results"))
    f.iteration = 2
    feed(view, [f.make(ContentDelta, content="The answer is 42."), f.make(Done, finish_reason="stop")])
    text = view.toPlainText()
    assert "calculate" not in text
    assert "web_search" in text and "ok · 3 ms" in text
    assert text.index("Let me check.") < text.index("web_search") < text.index("The answer is 42.")
    assert "three results" not in text
    view.anchorClicked.emit(QUrl("parley-tool:c2"))
    assert "three results" in view.toPlainText() and "arguments:" in view.toPlainText()
    view.anchorClicked.emit(QUrl("parley-tool:c2"))
    assert "three results" not in view.toPlainText()


def test_error_and_cancellation_are_shown_in_the_conversation(qtbot):
    view = make_view(qtbot)
    f = EventFactory("r")
    feed(view, [f.make(RunStarted, provider="p", model="m"), f.make(ContentDelta, content="Partial")])
    feed(view, [f.make(RunError, message="The provider rejected the API key (401).", code="authentication",
                       status=401), f.make(Done, finish_reason="error")])
    assert "Error: The provider rejected the API key (401)." in view.toPlainText()
    assert "Partial" in view.toPlainText()
    f2 = EventFactory("r2")
    feed(view, [f2.make(RunStarted, provider="p", model="m"), f2.make(ContentDelta, content="Half an ans"),
                f2.make(Done, finish_reason="cancelled")])
    assert "Stopped: the answer above is partial." in view.toPlainText()


def test_long_history_shows_a_page_and_loads_older_on_demand(qtbot):
    view = make_view(qtbot)
    messages = [ChatMessage("user" if i % 2 == 0 else "assistant", f"message number {i}") for i in range(5_000)]
    view.set_messages(messages)
    assert view.shown_message_count == PAGE_SIZE
    assert "message number 4999" in view.toPlainText() and "message number 4000" not in view.toPlainText()
    assert view.load_older()
    assert view.shown_message_count == 2 * PAGE_SIZE
    assert f"message number {5_000 - 2 * PAGE_SIZE}" in view.toPlainText()


def test_history_places_chips_at_their_offsets(qtbot):
    view = make_view(qtbot)
    chip = ToolChip("c1", "web_search", '{"query": "x"}', status="ok", result="r", duration_ms=5, offset=6)
    view.set_messages([ChatMessage("assistant", "Before after.", tools=[chip])])
    text = view.toPlainText()
    assert text.index("Before") < text.index("web_search") < text.index("after.")


def test_links_open_in_the_browser_and_remote_images_never_load(qtbot):
    opened = []
    view = make_view(qtbot, open_url=opened.append)
    view.anchorClicked.emit(QUrl("https://example.org/page"))
    view.anchorClicked.emit(QUrl("javascript:alert(1)"))
    assert opened == [QUrl("https://example.org/page")]
    assert view.loadResource(2, QUrl("https://tracker.example/pixel.png")) is None


def test_auto_scroll_only_when_at_bottom(qtbot):
    view = make_view(qtbot)
    view.show()
    view.set_messages([ChatMessage("user", f"line {i}\n\nmore") for i in range(40)])
    bar = view.verticalScrollBar()
    view.begin_assistant()
    view.append_content("streamed while at the bottom\n\n" * 5)
    view.flush()
    assert bar.maximum() > 0 and bar.value() == bar.maximum()
    bar.setValue(0)
    view.append_content("new text\n\n" * 20)
    view.flush()
    assert bar.value() == 0  # the reader scrolled up: do not yank the view
