"""A conversation's current branch as Markdown, for reading and sharing.

Reasoning goes in a collapsed ``<details>`` block, tool calls and their results in code fences at the place in
the answer where they were made, and answers that did not complete say so. Other branches are counted, not
shown (the JSON export holds them all).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from app.storage.history import History
from app.storage.records import AttachmentRecord, MessageRecord


def format_time(epoch_ms: int) -> str:
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M UTC")


def fence(text: str, language: str = "") -> str:
    """A code block whose fence is longer than any backtick run inside ``text``."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{language}\n{text}\n{marks}"


def _size(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB" if size >= 1024 * 1024 else f"{size / 1024:.0f} KB" if size >= 1024 \
        else f"{size} bytes"


def _attachments(history: History, records: tuple[AttachmentRecord, ...]) -> list[str]:
    """Links to the attached files in Parley's attachment store (an image shown, a document linked)."""
    out = []
    for record in records:
        target = history.attachments.path(record.sha256).as_uri()
        label = record.name.replace("[", "(").replace("]", ")")
        link = f"[{label}](<{target}>)"
        details = f"{record.media_type}, {_size(record.size)}"
        out.append(f"- {'!' if record.kind == 'image' else ''}{link} ({details})")
    return [*out, ""] if out else []


def _assistant(message: MessageRecord) -> list[str]:
    out = []
    if message.reasoning:
        out += ["<details><summary>Reasoning</summary>", "", message.reasoning, "", "</details>", ""]
    cursor = 0
    text = message.content
    for call in sorted(message.tool_calls, key=lambda c: c.position):
        offset = min(max(call.text_offset, cursor), len(text))
        if text[cursor:offset].strip():
            out += [text[cursor:offset].strip(), ""]
        cursor = offset
        out += [f"**Tool call** `{call.name}` ({call.call_id})", "", fence(call.arguments, "json"), ""]
        if call.output is None:
            out += ["*No result: the run stopped before this call finished.*", ""]
        else:
            note = ", truncated" if call.output.truncated else ""
            out += [f"**Result** ({call.output.status}, {call.output.duration_ms} ms{note})", "",
                    fence(call.output.content), ""]
    if text[cursor:].strip():
        out += [text[cursor:].strip(), ""]
    if message.status != "complete":
        out += [f"*This answer is {message.status}"
                + (f" ({message.finish_reason})" if message.finish_reason else "") + ".*", ""]
    return out


def export_markdown(history: History, conversation_id: int) -> str:
    conversation = history.conversation(conversation_id)
    branch = history.branch(conversation_id)
    total = len(history.all_messages(conversation_id))
    lines = [f"# {conversation.title or f'Conversation {conversation.id}'}", ""]
    details = [f"Conversation {conversation.id}", f"started {format_time(conversation.created_at)}"]
    if conversation.provider or conversation.model:
        details.append(" / ".join(x for x in (conversation.provider, conversation.model) if x))
    lines += ["*" + " · ".join(details) + "*", ""]
    if total > len(branch):
        lines += [f"*This is the current branch; {total - len(branch)} messages on other branches are in the "
                  "JSON export.*", ""]
    if conversation.system_prompt:
        lines += ["## System", "", conversation.system_prompt, ""]
    for message in branch:
        if message.role == "user":
            lines += ["## User", "", *_attachments(history, message.attachments), message.content, ""]
        else:
            lines += ["## Assistant", "", *_assistant(message)]
    return "\n".join(lines).rstrip() + "\n"
