"""Stored messages as the chat view shows them: one bubble per answer, however many model calls it took.

A run stores one assistant message per model call (see app/storage/run_recorder.py). The reader wants one
answer with its tool chips where they happened, so consecutive assistant messages after a user message are
joined, and each tool call's offset is moved by the length of the text before it. Each bubble carries the id
of its first stored message and, when it has several versions, which one it is (for the message actions).
An answer continued after Stop is one bubble whose state is that of its latest part.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from app.storage.branches import Versions
from app.storage.history import History
from app.storage.records import MessageRecord
from orchestration.tool_outcome import duplicate_of
from widgets.chat_view import ChatMessage
from widgets.message_attachments import AttachmentView
from widgets.tool_chip_text import ToolChip

STATUS_RANK = {"complete": 0, "interrupted": 1, "error": 2, "streaming": 1}
LENGTH_NOTICE = "The answer hit the output token limit."  # as the live view says it (widgets/chat_view.py)


def _versions(record: MessageRecord, versions: dict[int, Versions] | None) -> tuple[int, int] | None:
    found = (versions or {}).get(record.id)
    return (found.position, found.count) if found is not None and found.count > 1 else None


def stored_run_errors(history: History, conversation_id: int) -> dict[str, str]:
    """The message of each of the conversation's runs that ended with an error, by run id (runs.error)."""
    errors: dict[str, str] = {}
    for run in history.runs(conversation_id):
        message = (run.error or {}).get("message")
        if isinstance(message, str) and message:
            errors[run.id] = message
    return errors


def chat_messages(records: Iterable[MessageRecord],
                  visibility_of: Callable[[str], str] = lambda name: "primary",
                  versions: dict[int, Versions] | None = None,
                  attachments_of: Callable[[MessageRecord], list[AttachmentView]] = lambda record: [],
                  footers: Mapping[str, tuple[str, str]] | None = None,
                  run_errors: Mapping[str, str] | None = None) -> list[ChatMessage]:
    """``visibility_of`` gives a tool's visibility by name (hidden tools get no chip, as while streaming);
    ``versions`` (app/storage/branches.py) adds the ‹ 2/3 › switcher to messages with siblings;
    ``attachments_of`` gives a user message's attachments as the view shows them; ``footers`` an answer's tokens
    and cost and its tooltip by run id (app/session/window_usage.py); ``run_errors`` the error that ended a run, by run
    id (``stored_run_errors``), shown under an answer it cut off."""
    shown: list[ChatMessage] = []
    joining = False
    last_run: str | None = None
    cut_short = False  # the answer being joined ended at the output token limit

    def end_answer() -> None:
        nonlocal cut_short
        if cut_short:
            shown.append(ChatMessage("notice", LENGTH_NOTICE))
        cut_short = False

    for record in records:
        if record.role == "user":
            end_answer()
            shown.append(ChatMessage("user", record.content, ref=record.id, versions=_versions(record, versions),
                                     attachments=attachments_of(record) if record.attachments else []))
            joining = False
            continue
        if record.role != "assistant":
            continue
        continued = joining and record.run_id != last_run  # a later run went on with this answer
        last_run = record.run_id
        if not joining:
            shown.append(ChatMessage("assistant", "", ref=record.id, versions=_versions(record, versions)))
            joining = True
        answer = shown[-1]
        if footers and record.run_id is not None and record.run_id in footers:
            answer.footer, answer.footer_detail = footers[record.run_id]
        base = len(answer.text)
        cut_short = record.finish_reason == "length"
        if answer.text and record.content and not answer.text.endswith("\n") and not continued:
            answer.text += "\n\n"
            base = len(answer.text)
        answer.text += record.content
        repeats = duplicate_of((call.call_id, call) for call in record.tool_calls)  # one record: one model turn
        for call in record.tool_calls:
            output = call.output
            answer.tools.append(ToolChip(
                id=call.call_id, name=call.name, arguments=call.arguments,
                visibility=visibility_of(call.name),
                # no stored result: the run ended before the call ran (Stop while it waited for approval, an
                # error), which the live chip says as "not run (the run ended first)"
                status=output.status if output else "stopped",
                result=output.content if output else "",
                duration_ms=output.duration_ms if output else None,
                offset=base + min(call.text_offset, len(record.content)),
                repeated=call.call_id in repeats))
        status = "interrupted" if record.status == "streaming" else record.status
        if continued or STATUS_RANK.get(status, 0) > STATUS_RANK.get(answer.status, 0):
            answer.status = status
            if status == "error" and run_errors and record.run_id is not None:
                answer.error = run_errors.get(record.run_id, "")
    end_answer()
    return shown
