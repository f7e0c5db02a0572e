"""Stored history back into provider-neutral messages, so a saved conversation can be continued.

The current branch becomes: the system prompt, then each user message, each assistant message (reasoning, then
its text with the tool calls put back at the offsets where they appeared), and a tool result for each call.
A call whose result never arrived (the run was cut off) gets an error result, because providers refuse a
tool call without one.
"""

from __future__ import annotations

from app.storage.attachments import message_parts
from app.storage.history import History, ResumePoint
from app.storage.records import MessageRecord
from orchestration.messages import (
    AssistantMessage,
    AssistantPart,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)

MISSING_TOOL_RESULT = "Not run: the run was interrupted before this tool call finished."


def assistant_message(record: MessageRecord) -> AssistantMessage | None:
    """The stored assistant turn as a message; None when nothing of it was kept."""
    parts: list[AssistantPart] = []
    if record.reasoning:
        parts.append(ReasoningPart(text=record.reasoning))
    text = record.content
    cursor = 0
    for call in sorted(record.tool_calls, key=lambda c: c.position):
        offset = min(max(call.text_offset, cursor), len(text))
        if offset > cursor:
            parts.append(TextPart(text=text[cursor:offset]))
        parts.append(ToolCallPart(id=call.call_id, name=call.name, arguments=call.arguments))
        cursor = offset
    if cursor < len(text):
        parts.append(TextPart(text=text[cursor:]))
    return AssistantMessage(parts=parts, model=record.model) if parts else None


def tool_results(record: MessageRecord) -> list[ToolResultMessage]:
    results = []
    for call in sorted(record.tool_calls, key=lambda c: c.position):
        if call.output is None:
            results.append(ToolResultMessage(call_id=call.call_id, name=call.name, content=MISSING_TOOL_RESULT,
                                             status="error"))
        else:
            results.append(ToolResultMessage(call_id=call.call_id, name=call.name, content=call.output.content,
                                             status=call.output.status))  # type: ignore[arg-type]
    return results


def conversation_messages(history: History, conversation_id: int, leaf_id: int | None = None, *,
                          upto: ResumePoint | None = None) -> list[Message]:
    """The messages for the next request: the branch ending at ``leaf_id``, or at ``upto`` (a resume point the
    caller keeps, to store the new message right there), or else at the conversation's resume point (the
    current branch, leaving out a run another Parley process is still answering)."""
    conversation = history.conversation(conversation_id)
    messages: list[Message] = []
    if conversation.system_prompt:
        messages.append(SystemMessage(content=conversation.system_prompt))
    if leaf_id is None:
        upto = upto or history.resume_point(conversation_id)
        leaf_id = upto.message_id
        if leaf_id is None:
            return messages
    for record in history.branch(conversation_id, leaf_id):
        if record.role == "user":
            messages.append(UserMessage(content=record.content,
                                        attachments=message_parts(history.attachments, record.attachments)))
            continue
        assistant = assistant_message(record)
        if assistant is not None:
            messages.append(assistant)
        messages.extend(tool_results(record))
    return messages
