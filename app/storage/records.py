"""Rows of the history database as typed, read-only records (what the repository returns)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from orchestration.bounded_json import loads_bounded

MessageRole = Literal["user", "assistant"]
MessageStatus = Literal["streaming", "complete", "interrupted", "error"]
EndedRunStatus = Literal["complete", "interrupted", "error"]
RunStatus = Literal["running"] | EndedRunStatus


def loads_or_none(text: str | None) -> Any:
    return None if text is None else loads_bounded(text, what="a stored value")


@dataclass(frozen=True)
class Conversation:
    id: int
    title: str
    created_at: int
    updated_at: int
    provider: str | None
    model: str | None
    system_prompt: str | None
    pinned: bool
    archived: bool
    current_leaf_id: int | None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Conversation:
        return cls(id=row["id"], title=row["title"], created_at=row["created_at"], updated_at=row["updated_at"],
                   provider=row["provider"], model=row["model"], system_prompt=row["system_prompt"],
                   pinned=bool(row["pinned"]), archived=bool(row["archived"]),
                   current_leaf_id=row["current_leaf_id"])


class ListedConversation(NamedTuple):
    """A row of the window's conversation list: what it shows and sorts by, nothing more."""

    id: int
    title: str
    updated_at: int
    pinned: bool


@dataclass(frozen=True)
class ConversationSummary:
    id: int
    title: str
    updated_at: int
    message_count: int
    pinned: bool
    archived: bool


@dataclass(frozen=True)
class ToolOutputRecord:
    status: str
    content: str
    duration_ms: int
    truncated: bool
    data: Any = None


@dataclass(frozen=True)
class ToolCallRecord:
    id: int
    message_id: int
    position: int
    call_id: str
    name: str
    arguments: str
    text_offset: int
    output: ToolOutputRecord | None = None


@dataclass(frozen=True)
class AttachmentRecord:
    """A file attached to a user message; the bytes are in the attachment store under ``sha256``."""

    id: int
    message_id: int
    position: int
    kind: Literal["image", "document"]
    name: str
    media_type: str
    sha256: str
    size: int
    width: int | None
    height: int | None
    text: str | None  # a document's text as sent
    note: str


@dataclass(frozen=True)
class MessageRecord:
    id: int
    conversation_id: int
    parent_id: int | None
    run_id: str | None
    role: MessageRole
    content: str
    reasoning: str
    status: MessageStatus
    finish_reason: str | None
    model: str | None
    usage: dict[str, int] | None
    created_at: int
    updated_at: int
    tool_calls: tuple[ToolCallRecord, ...] = field(default=())
    attachments: tuple[AttachmentRecord, ...] = field(default=())

    @classmethod
    def from_row(cls, row: dict[str, Any], tool_calls: tuple[ToolCallRecord, ...] = (),
                 attachments: tuple[AttachmentRecord, ...] = ()) -> MessageRecord:
        return cls(id=row["id"], conversation_id=row["conversation_id"], parent_id=row["parent_id"],
                   run_id=row["run_id"], role=row["role"], content=row["content"], reasoning=row["reasoning"],
                   status=row["status"], finish_reason=row["finish_reason"], model=row["model"],
                   usage=loads_or_none(row["usage"]), created_at=row["created_at"], updated_at=row["updated_at"],
                   tool_calls=tool_calls, attachments=attachments)


@dataclass(frozen=True)
class RunRecord:
    id: str
    conversation_id: int
    user_message_id: int | None
    provider: str | None
    model: str | None
    status: RunStatus
    finish_reason: str | None
    started_at: int
    ended_at: int | None
    iterations: int
    input_tokens: int | None  # None: unknown, the provider reported no usage
    output_tokens: int | None
    reasoning_tokens: int | None
    cached_tokens: int | None
    error: dict[str, Any] | None
    cost_usd: float | None = None  # None: unknown (no price, or no usage reported), or not priced yet
    priced_at: int | None = None  # when cost_usd was worked out; None: not priced yet (app/usage/backfill.py)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> RunRecord:
        return cls(id=row["id"], conversation_id=row["conversation_id"], user_message_id=row["user_message_id"],
                   provider=row["provider"], model=row["model"], status=row["status"],
                   finish_reason=row["finish_reason"], started_at=row["started_at"], ended_at=row["ended_at"],
                   iterations=row["iterations"], input_tokens=row["input_tokens"],
                   output_tokens=row["output_tokens"], reasoning_tokens=row["reasoning_tokens"],
                   cached_tokens=row["cached_tokens"], error=loads_or_none(row["error"]),
                   cost_usd=row.get("cost_usd"), priced_at=row.get("priced_at"))
