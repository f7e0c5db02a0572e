"""The one place where streamed deltas become a whole assistant message.

Adapters feed it text, reasoning and tool-call pieces in wire order; it returns the typed provider events to
yield, and at the end the assembled ``AssistantMessage``. Tool-call pieces are keyed by index, else by id,
else they continue the last call; an index that comes back with a different id starts a new call (servers that
number every call 0); raw argument strings are kept exactly as streamed; calls without an id get one. A call
is announced as soon as it is complete: when its arguments parse and another call starts, or when the stream
finishes, or when the adapter says so (``complete_call``: the wire marked the end of the call).

Reasoning may come as several parts (one per Anthropic thinking block or Responses reasoning item), each with
its own signature, encrypted data and detail records; ``start_reasoning`` opens a new one.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from orchestration.bounded_json import loads_bounded
from orchestration.engine import (
    ModelFinish,
    ProviderEvent,
    ReasoningChunk,
    ResponseComplete,
    ResponseStarted,
    TextChunk,
    TokenUsage,
    ToolCallReady,
    UsageReport,
)
from orchestration.messages import AssistantMessage, ReasoningPart, TextPart, ToolCallPart


def new_call_id() -> str:
    return "call_" + uuid.uuid4().hex[:24]


def _is_complete_json(text: str) -> bool:
    if not text.strip():
        return True
    try:
        loads_bounded(text, what="tool-call arguments")
    except ValueError:  # not JSON yet, or past a limit (the tool turn reports which)
        return False
    return True


@dataclass
class _PendingCall:
    key: Any
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    opaque: dict[str, Any] = field(default_factory=dict)
    announced: bool = False
    part_index: int = -1

    def to_part(self) -> ToolCallPart:
        return ToolCallPart(id=self.id or new_call_id(), name=self.name, arguments="".join(self.arguments),
                            opaque=dict(self.opaque))


_JOINED_DETAIL_FIELDS = ("text", "summary")


def merge_reasoning_details(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Merge streamed reasoning-detail records that share (type, index): texts and summaries joined, other
    fields kept (a later non-empty value wins)."""
    merged: list[dict[str, Any]] = []
    for rec in records:
        key = (rec.get("type"), rec.get("index"))
        target = next((m for m in merged if (m.get("type"), m.get("index")) == key), None)
        if target is None:
            merged.append(dict(rec))
            continue
        for name, value in rec.items():
            if name in _JOINED_DETAIL_FIELDS and isinstance(value, str | None):
                target[name] = (target.get(name) or "") + (value or "")
            elif value not in (None, "") or name not in target:
                target[name] = value
    return merged


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class ResponseAccumulator:
    """Assembles one model response from deltas."""

    def __init__(self) -> None:
        self.parts: list[TextPart | ReasoningPart | ToolCallPart | None] = []
        self._by_index: dict[int, _PendingCall] = {}
        self._by_id: dict[str, _PendingCall] = {}
        self._order: list[_PendingCall] = []
        self._last_call: _PendingCall | None = None
        self._reasoning_records: list[dict[str, Any]] = []
        self._signature: str | None = None
        self.response_id: str | None = None
        self.model: str | None = None
        self.usage: TokenUsage | None = None
        self.provider_data: dict[str, Any] = {}
        self._started = False
        # Streamed text is joined once, not re-copied per piece (``part.text += piece`` is quadratic).
        self._open: TextPart | ReasoningPart | None = None
        self._pieces: list[str] = []

    # --- metadata -----------------------------------------------------------------------------------
    def meta(self, response_id: str | None = None, model: str | None = None) -> list[ProviderEvent]:
        self.response_id = self.response_id or _text_or_none(response_id)
        self.model = self.model or _text_or_none(model)
        if self._started:
            return []
        self._started = True
        return [ResponseStarted(response_id=self.response_id, model=self.model)]

    def set_usage(self, usage: TokenUsage) -> list[ProviderEvent]:
        self.usage = usage
        return [UsageReport(usage=usage)]

    # --- text and reasoning -------------------------------------------------------------------------
    def text(self, text: str) -> list[ProviderEvent]:
        if not text or not isinstance(text, str):
            return []
        last = self.parts[-1] if self.parts else None
        if not isinstance(last, TextPart):
            last = TextPart(text="")
            self.parts.append(last)
        self._add(last, text)
        return [TextChunk(text=text)]

    def reasoning(self, text: str) -> list[ProviderEvent]:
        if not text or not isinstance(text, str):
            return []
        self._add(self._reasoning_part(), text)
        return [ReasoningChunk(text=text)]

    def _add(self, part: TextPart | ReasoningPart, text: str) -> None:
        if part is not self._open:
            self._join_pieces()
            self._open = part
        self._pieces.append(text)

    def _join_pieces(self) -> None:
        if self._open is not None and self._pieces:
            self._open.text += "".join(self._pieces)
        self._pieces = []

    def reasoning_record(self, record: dict[str, Any]) -> None:
        """An opaque reasoning record (signature, encrypted data, detail) to send back with the message."""
        self._reasoning_records.append(record)

    def reasoning_signature(self, signature: str) -> None:
        if isinstance(signature, str):
            self._signature = (self._signature or "") + signature

    def start_reasoning(self, *, provider_format: str | None = None, encrypted: str | None = None,
                        signature: str | None = None) -> None:
        """Open a new reasoning part (a thinking block, a redacted block, a reasoning item); the following
        ``reasoning``, ``sign_reasoning`` and ``reasoning_details`` calls go to it."""
        self.parts.append(ReasoningPart(provider_format=_text_or_none(provider_format),
                                        encrypted=_text_or_none(encrypted), signature=_text_or_none(signature)))

    def sign_reasoning(self, signature: str) -> None:
        """A signature (or a piece of one) for the latest reasoning part."""
        if not isinstance(signature, str):
            return
        part = self._latest_reasoning()
        part.signature = (part.signature or "") + signature

    def reasoning_details(self, details: list[dict[str, Any]], *, provider_format: str | None = None) -> None:
        """Detail records (a whole reasoning item) for the latest reasoning part, kept to be sent back."""
        part = self._latest_reasoning()
        part.details = [d for d in details if isinstance(d, dict)] if isinstance(details, list) else []
        if isinstance(provider_format, str) and provider_format:
            part.provider_format = provider_format

    def _latest_reasoning(self) -> ReasoningPart:
        part = next((p for p in reversed(self.parts) if isinstance(p, ReasoningPart)), None)
        if part is None:
            part = ReasoningPart()
            self.parts.append(part)
        return part

    def _reasoning_part(self) -> ReasoningPart:
        last = self.parts[-1] if self.parts else None
        if isinstance(last, ReasoningPart):
            return last
        part = ReasoningPart()
        self.parts.append(part)
        return part

    # --- tool calls ---------------------------------------------------------------------------------
    def tool_call_delta(
        self,
        *,
        index: int | None = None,
        id: str | None = None,
        name: str | None = None,
        arguments: str | None = None,
        opaque: dict[str, Any] | None = None,
    ) -> list[ProviderEvent]:
        # Values straight from a provider's JSON: a field of the wrong type counts as absent.
        index = index if isinstance(index, int) and not isinstance(index, bool) else None
        id, name, arguments = _text_or_none(id), _text_or_none(name), _text_or_none(arguments)
        call = self._find_call(index, id)
        events: list[ProviderEvent] = []
        if call is None:
            events.extend(self._announce_finished_calls())
            call = self._new_call(("index", index) if index is not None else ("id", id))
        if index is not None:
            self._by_index[index] = call
        if id and not call.id:
            call.id = id
            self._by_id[id] = call
        if name and not call.name:
            call.name = name
        if arguments:
            call.arguments.append(arguments)
        if opaque:
            call.opaque.update(opaque)
        self._last_call = call
        return events

    def _find_call(self, index: int | None, id: str | None) -> _PendingCall | None:
        """The call a delta continues, or None when it starts a new one."""
        if index is not None:
            call = self._by_index.get(index)
            if call is not None and id and call.id and call.id != id:
                return None  # the index was reused for another call
            return call
        if id:
            return self._by_id.get(id)
        return self._last_call

    def _new_call(self, key: Any) -> _PendingCall:
        call = _PendingCall(key=key)
        self._order.append(call)
        call.part_index = len(self.parts)
        self.parts.append(None)
        return call

    def tool_call(self, *, id: str | None, name: str, arguments: str,
                  opaque: dict[str, Any] | None = None) -> list[ProviderEvent]:
        """A call that arrived whole."""
        id, name = _text_or_none(id) or None, _text_or_none(name) or ""
        arguments = _text_or_none(arguments) or ""
        events = self._announce_finished_calls()
        call = self._new_call(("whole", len(self._order)))
        call.id, call.name, call.arguments, call.opaque = id, name, [arguments], dict(opaque or {})
        if id:
            self._by_id.setdefault(id, call)
        events.extend(self._announce(call))
        self._last_call = None
        return events

    def complete_call(self, *, index: int | None = None, id: str | None = None,
                      fix_arguments: Callable[[str], str] | None = None) -> list[ProviderEvent]:
        """The wire marked the end of a call (a block or item stop): announce it now. ``fix_arguments`` may
        rewrite the raw arguments first, for formats that send a documented placeholder (Cohere's "null")."""
        index = index if isinstance(index, int) and not isinstance(index, bool) else None
        id = _text_or_none(id)
        call = self._by_index.get(index) if index is not None else (self._by_id.get(id) if id else None)
        if call is None or call.announced:
            return []
        if fix_arguments is not None:
            call.arguments = [fix_arguments("".join(call.arguments))]
        if not call.name:
            return []
        return self._announce(call)

    def _announce_finished_calls(self) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        for call in self._order:
            if not call.announced and call.name and _is_complete_json("".join(call.arguments)):
                events.extend(self._announce(call))
        return events

    def _announce(self, call: _PendingCall) -> list[ProviderEvent]:
        if call.id is None:
            call.id = new_call_id()
        call.announced = True
        return [ToolCallReady(call=call.to_part())]

    # --- end ----------------------------------------------------------------------------------------
    def snapshot(self) -> AssistantMessage:
        """The message as far as it has arrived (used to keep partial answers)."""
        self._join_pieces()
        parts: list[TextPart | ReasoningPart | ToolCallPart] = []
        calls_by_slot = {c.part_index: c for c in self._order}
        for i, part in enumerate(self.parts):
            if part is None:
                call = calls_by_slot[i]
                if call.id is None:
                    call.id = new_call_id()
                parts.append(call.to_part())
            else:
                parts.append(part.model_copy(deep=True))
        self._attach_opaque_reasoning(parts)
        return AssistantMessage(parts=parts, response_id=self.response_id, model=self.model,
                                provider_data=copy.deepcopy(self.provider_data))

    def _attach_opaque_reasoning(self, parts: list[TextPart | ReasoningPart | ToolCallPart]) -> None:
        if not self._reasoning_records and not self._signature:
            return
        target = next((p for p in parts if isinstance(p, ReasoningPart)), None)
        if target is None:
            target = ReasoningPart()
            parts.insert(0, target)
        if self._reasoning_records:
            target.details = merge_reasoning_details(self._reasoning_records)
        if self._signature:
            target.signature = self._signature

    def finish(self, finish_reason: ModelFinish,
               native_finish_reason: str | None = None) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        if not self._started:
            events.extend(self.meta())
        for call in self._order:
            if not call.announced:
                events.extend(self._announce(call))
        message = self.snapshot()
        if finish_reason == "stop" and message.tool_calls:
            finish_reason = "tool_calls"
        events.append(ResponseComplete(message=message, finish_reason=finish_reason,
                                       native_finish_reason=_text_or_none(native_finish_reason), usage=self.usage))
        return events
