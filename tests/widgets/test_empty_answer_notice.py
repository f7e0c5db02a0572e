"""An answer with no text and no visible tool chip says so (user pass 4).

After a tool-call storm the final answer call asked for more tools, which were not run, and sent no text: the chat
showed an "Assistant" header with nothing under it. The calculator's chips are hidden, so nothing explained it.
"""

from __future__ import annotations

from widgets.chat_view import ChatMessage, ChatView
from widgets.tool_chip_text import ToolChip


def _shown(qtbot, answer: ChatMessage) -> str:
    view = ChatView()
    qtbot.addWidget(view)
    view.set_messages([ChatMessage("user", "Add these up"), answer])
    return view.document().toPlainText()


def test_an_answer_of_hidden_tool_calls_only_says_what_happened(qtbot):
    calls = [ToolChip(f"c{i}", "calculate", "{}", visibility="hidden", status="ok") for i in range(6)]
    shown = _shown(qtbot, ChatMessage("assistant", "", tools=calls))
    assert shown.endswith("No text in this answer: the model asked for 6 tool calls (the run inspector, Ctrl+I, "
                          "lists them).")


def test_an_empty_answer_says_the_model_sent_no_text(qtbot):
    assert _shown(qtbot, ChatMessage("assistant", "  \n")).endswith("No text in this answer: the model sent none.")


def test_an_answer_with_text_or_a_visible_chip_gets_no_such_line(qtbot):
    assert "No text" not in _shown(qtbot, ChatMessage("assistant", "Six."))
    chip = ToolChip("w", "web_search", "{}", visibility="primary", status="ok")
    assert "No text" not in _shown(qtbot, ChatMessage("assistant", "", tools=[chip]))
