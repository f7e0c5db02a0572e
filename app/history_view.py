"""Stored messages as the chat view shows them: one bubble per answer, however many model calls it took.

A run stores one assistant message per model call (see app/storage/run_recorder.py). The reader wants one
answer with its tool chips where they happened, so consecutive assistant messages after a user message are
joined, and each tool call's offset is moved by the length of the text before it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from app.storage.records import MessageRecord
from orchestration.tool_outcome import duplicate_of
from widgets.chat_view import ChatMessage, ToolChip

STATUS_RANK = {"complete": 0, "interrupted": 1, "error": 2, "streaming": 1}


def chat_messages(records: Iterable[MessageRecord],
                  visibility_of: Callable[[str], str] = lambda name: "primary",
                  footers: Mapping[str, tuple[str, str]] | None = None) -> list[ChatMessage]:
    """``visibility_of`` gives a tool's visibility by name (hidden tools get no chip, as while streaming);
    ``footers`` an answer's footer and its tooltip by run id (app/usage/window.py)."""
    shown: list[ChatMessage] = []
    joining = False
    for record in records:
        if record.role == "user":
            shown.append(ChatMessage("user", record.content))
            joining = False
            continue
        if record.role != "assistant":
            continue
        if not joining:
            shown.append(ChatMessage("assistant", ""))
            joining = True
        answer = shown[-1]
        if footers and record.run_id in footers:
            answer.footer, answer.footer_detail = footers[record.run_id]
        base = len(answer.text)
        if answer.text and record.content and not answer.text.endswith("\n"):
            answer.text += "\n\n"
            base = len(answer.text)
        answer.text += record.content
        repeats = duplicate_of((call.call_id, call) for call in record.tool_calls)  # one record: one model turn
        for call in record.tool_calls:
            output = call.output
            answer.tools.append(ToolChip(
                id=call.call_id, name=call.name, arguments=call.arguments,
                visibility=visibility_of(call.name),
                status=output.status if output else "error",
                result=output.content if output else "(no result was stored)",
                duration_ms=output.duration_ms if output else None,
                offset=base + min(call.text_offset, len(record.content)),
                repeated=call.call_id in repeats))
        status = "interrupted" if record.status == "streaming" else record.status
        if STATUS_RANK.get(status, 0) > STATUS_RANK.get(answer.status, 0):
            answer.status = status
    return shown
