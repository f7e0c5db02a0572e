"""The chat's waiting states as widgets: pending chips (approval) in the chat view and the typing indicator."""

from __future__ import annotations

from orchestration.events import (
    Done,
    EventFactory,
    RunError,
    RunStarted,
    ToolCallInfo,
    ToolCalls,
    ToolExecuting,
    ToolResult,
)
from widgets.chat_view import ChatView
from widgets.typing_indicator import INDICATOR_MARGIN_PX, TypingIndicator


def started_with_calls(qtbot, *names: str) -> tuple[ChatView, EventFactory]:
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    f = EventFactory("r")
    view.handle_event(f.make(RunStarted, provider="p", model="m"))
    view.handle_event(f.make(ToolCalls, calls=[ToolCallInfo(id=f"c{i}", name=name, arguments='{"path": "a"}')
                                               for i, name in enumerate(names, 1)]))
    return view, f


def test_a_pending_chip_runs_once_allowed(qtbot):
    view, f = started_with_calls(qtbot, "read_file")
    assert "read_file" not in view.toPlainText()  # no chip before anything is known about the call
    view.show_pending(["c1"])
    assert "◌ read_file(path=\"a\") · waiting for your approval" in view.toPlainText()
    assert view.pending_chips() == ["c1"]
    view.show_pending(["c1"])  # shown again on every event while it waits: still one chip
    assert view.toPlainText().count("read_file") == 1
    view.handle_event(f.make(ToolExecuting, id="c1", name="read_file", category="file", visibility="primary"))
    assert "… read_file(path=\"a\") · running" in view.toPlainText() and view.pending_chips() == []
    view.handle_event(f.make(ToolResult, id="c1", name="read_file", result="x", status="ok", duration_ms=2,
                             category="file", visibility="primary"))
    assert "✓ read_file(path=\"a\") · ok · 2 ms" in view.toPlainText()


def test_a_denied_chip_and_one_the_run_ended_before(qtbot):
    view, f = started_with_calls(qtbot, "read_file", "list_files")
    view.show_pending(["c1", "c2"])
    view.handle_event(f.make(ToolResult, id="c1", name="read_file", result="denied by the user", status="denied",
                             duration_ms=0, category="file", visibility="primary"))
    view.handle_event(f.make(RunError, message="boom", code="server_error"))
    view.handle_event(f.make(Done, finish_reason="error"))
    text = view.toPlainText()
    assert "⊘ read_file(path=\"a\") · denied" in text
    assert "– list_files(path=\"a\") · not run (the run ended first)" in text
    assert text.index("read_file") < text.index("list_files") and view.pending_chips() == []


def test_the_typing_indicator_sits_at_the_bottom_of_its_host_and_hides_on_empty_text(qtbot):
    view = ChatView()
    qtbot.addWidget(view)
    view.resize(600, 400)
    view.show()
    indicator = TypingIndicator(view.viewport())
    assert indicator.text() == "" and not indicator.isVisible()
    indicator.set_text("Waiting for the model…")
    assert indicator.isVisible() and indicator.text() == "Waiting for the model…"
    assert indicator.geometry().bottom() == view.viewport().height() - INDICATOR_MARGIN_PX - 1
    view.resize(600, 300)  # follows the chat's size
    qtbot.waitUntil(lambda: indicator.geometry().bottom() == view.viewport().height() - INDICATOR_MARGIN_PX - 1)
    indicator.set_text("")
    assert not indicator.isVisible() and indicator.text() == ""
