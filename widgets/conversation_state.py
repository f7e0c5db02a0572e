"""What one conversation shows besides its stored messages, folded from run events (no Qt).

The chat, the reasoning and search-results panes, the warning banner, the inspector's live timeline and the
status bar's token counts all show the latest run of the conversation that is open. This model keeps that run's
events and what follows from them (tokens, whether the run is going, whether it still waits for its first token,
which calls wait for the user's approval), so the window can show any conversation again by handing the panes
the same events: a live run and a run read back from the database go through the same fold and the same
widgets, and so look the same. ``ConversationStates`` holds one state per conversation id.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, assert_never

from orchestration.events import (
    ContentDelta,
    Done,
    ModelCallFinished,
    ModelCallStarted,
    ModelExchange,
    ReasoningDelta,
    RunError,
    RunEvent,
    RunStarted,
    RunWarning,
    ToolCalls,
    ToolExecuting,
    ToolResult,
    Usage,
)
from orchestration.run_trace import RunTrace
from orchestration.stored_events import read_stored

NEW_CHAT = None  # the key of a conversation not saved yet (a new chat, or a session without a database)

_TEXT = frozenset({"content", "reasoning"})  # stored streamed pieces: consecutive ones of a model call join into one


def coalesced(events: Iterable[RunEvent]) -> Iterator[RunEvent]:
    """The events with each stretch of consecutive text pieces of one kind and model call joined into one event
    (the first piece's seq and time). The panes, the chat and the trace show the same for either; a replay of a
    long answer then costs a few events instead of one per streamed piece."""
    pieces: list[str] = []
    first: ContentDelta | ReasoningDelta | None = None
    for event in events:
        if first is not None and (type(event) is not type(first) or event.iteration != first.iteration):
            yield first if len(pieces) == 1 else first.model_copy(update={"content": "".join(pieces)})
            first, pieces = None, []
        if isinstance(event, ContentDelta | ReasoningDelta):
            first = first or event
            pieces.append(event.content)
        else:
            yield event
    if first is not None:
        yield first if len(pieces) == 1 else first.model_copy(update={"content": "".join(pieces)})


def _coalesced_stored(stored: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """``coalesced`` for stored events (JSON objects), before they are validated one by one."""
    pieces: list[str] = []
    first: dict[str, Any] | None = None
    for data in stored:
        if first is not None and (data.get("type") != first.get("type")
                                  or data.get("iteration") != first.get("iteration")):
            yield {**first, "content": "".join(pieces)}
            first, pieces = None, []
        if isinstance(data.get("type"), str) and data["type"] in _TEXT and isinstance(data.get("content"), str):
            first = first or data
            pieces.append(data["content"])
        else:
            yield data
    if first is not None:
        yield {**first, "content": "".join(pieces)}


@dataclass
class ConversationState:
    """The latest run of one conversation as the window shows it."""

    conversation_id: int | None = NEW_CHAT
    events: list[RunEvent] = field(default_factory=list)  # the latest run's events, in order
    trace: RunTrace | None = None  # the same run as the inspector's timeline
    running: bool = False
    waiting: bool = False  # a model call is under way and has sent nothing for the chat yet
    reasoning_seen: bool = False  # the current model call has sent reasoning while the chat waits
    input_tokens: int = 0
    output_tokens: int = 0
    has_usage: bool = False
    expect_reasoning: bool = False  # the run was started with reasoning asked for
    pending_approval: list[str] = field(default_factory=list)  # call ids waiting for the user's decision
    secrets: list[str] = field(default_factory=list)  # hidden in the inspector's timeline
    unread_note: str | None = None  # stored events of the run this version could not read (stored_events.py)

    @property
    def run_id(self) -> str | None:
        return self.events[0].run_id if self.events else None

    def fold(self, event: RunEvent) -> None:
        """Take one event of the conversation's latest run (a ``run_started`` begins a new latest run)."""
        if isinstance(event, RunStarted):
            self.events = []
            self.trace = RunTrace(self.secrets)
            self.running, self.waiting, self.reasoning_seen = True, True, False
            self.input_tokens = self.output_tokens = 0
            self.has_usage = False
            self.pending_approval = []
        elif self.run_id is not None and event.run_id != self.run_id:
            return  # a late event of an earlier run
        self.events.append(event)
        if self.trace is not None:
            self.trace.apply(event)
        match event:
            case Usage():  # the run's total over all its model calls, as the inspector and history count it
                self.input_tokens += event.input_tokens
                self.output_tokens += event.output_tokens
                self.has_usage = True
            case ModelCallStarted():
                if self.running:
                    self.waiting, self.reasoning_seen = True, False
            case ReasoningDelta():
                if event.content:
                    self.reasoning_seen = True
            case ToolExecuting() | ToolResult():
                if event.id in self.pending_approval:
                    self.pending_approval.remove(event.id)
            case ContentDelta() | ToolCalls() | RunError():
                self.waiting = False  # the chat no longer waits for the model to begin its answer
            case Done():
                self.waiting = self.running = False
                self.pending_approval = []
            case RunStarted() | RunWarning() | ModelCallFinished() | ModelExchange():
                pass
            case _:
                assert_never(event)

    def tokens_text(self) -> str:
        """The status bar's token counts for this conversation's latest run ("" when none were reported)."""
        if not self.has_usage:
            return ""
        return f"{self.input_tokens:,} in · {self.output_tokens:,} out"

    def waiting_text(self) -> str:
        """What the chat's typing indicator says, or "" when the chat is not waiting."""
        if not self.running:
            return ""
        if self.pending_approval:
            return "Waiting for your approval…"
        if not self.waiting:
            return ""
        return "Reasoning…" if self.reasoning_seen else "Waiting for the model…"

    @classmethod
    def from_stored(cls, conversation_id: int | None, stored: Iterable[dict[str, Any]]) -> ConversationState:
        """A conversation's latest run read back from the database (its stored, redacted event stream). Events
        this version cannot read are skipped and named in ``unread_note``; the rest still shows."""
        state = cls(conversation_id)
        read = read_stored(_coalesced_stored(stored))
        for event in read.events:
            state.fold(event)
        state.unread_note = read.note()
        if state.trace is not None:
            state.trace.unread_note = state.unread_note
        if state.running:  # a run whose ``done`` was never written (the app was killed): it is not going
            state.running = state.waiting = False
        return state


class ConversationStates:
    """One ``ConversationState`` per conversation id; a new chat's state lives under ``NEW_CHAT``."""

    def __init__(self) -> None:
        self._states: dict[int | None, ConversationState] = {}

    def get(self, conversation_id: int | None) -> ConversationState:
        state = self._states.get(conversation_id)
        if state is None:
            state = self._states[conversation_id] = ConversationState(conversation_id)
        return state

    def find(self, conversation_id: int | None) -> ConversationState | None:
        return self._states.get(conversation_id)

    def put(self, state: ConversationState) -> None:
        self._states[state.conversation_id] = state

    def move(self, old: int | None, new: int | None) -> ConversationState:
        """A new chat was saved as conversation ``new``: its state goes with it."""
        state = self._states.pop(old, None) or ConversationState(new)
        state.conversation_id = new
        self._states[new] = state
        return state

    def drop(self, conversation_id: int | None) -> None:
        self._states.pop(conversation_id, None)

    def running(self) -> list[int | None]:
        return [key for key, state in self._states.items() if state.running]

    def __contains__(self, conversation_id: object) -> bool:
        return conversation_id in self._states

    def __len__(self) -> int:
        return len(self._states)
