"""Saving a run as it happens: the user's message first, the answer at the end, checkpoints in between.

``begin`` writes the user message and a ``running`` run row before the request is sent, so nothing the user
typed is lost. The recorder is then an emit callback (it takes each ``RunEvent``): it buffers text, reasoning,
tool calls (with the offset in the answer text where each appeared), tool outputs, usage and the events
themselves. While text streams it checkpoints the partial answer (status ``streaming``) at most every
``CHECKPOINT_INTERVAL_S`` seconds, so a crash loses at most that much streamed text. At ``done`` everything is
written in one transaction: assistant messages (one per model call) with their final status and finish reason,
tool calls, tool outputs, the run row and every run event.

Storage failures never escape into the run: a failed checkpoint is retried at the next one, and a failed final
write is kept in ``save_error`` for the caller to report. Known secrets (the API key in use) are replaced
everywhere before writing, and error texts and stored events are redacted (orchestration/redaction.py).
No Qt: the window's run controller and ``parley chat`` use this same class.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, assert_never

from app.storage import attachments as attachment_rows
from app.storage.errors import StorageError, storage_errors
from app.storage.history import History, ResumePoint, now_ms
from app.storage.inserted import inserted_id
from app.storage.records import EndedRunStatus, MessageStatus, RunStatus
from app.storage.transactions import write_transaction
from orchestration.event_redaction import RedactingEmitter
from orchestration.events import (
    ContentDelta,
    Done,
    FinishReason,
    ModelCallFinished,
    ModelCallStarted,
    ModelExchange,
    ReasoningDelta,
    RunError,
    RunEvent,
    RunStarted,
    RunWarning,
    ToolCallInfo,
    ToolCalls,
    ToolExecuting,
    ToolResult,
    Usage,
    event_json,
)
from orchestration.redaction import redact_text, replace_secrets, withhold_secret_start

if TYPE_CHECKING:
    from app.attachments import PreparedAttachment

# Longest time streamed text stays only in memory before a checkpoint writes it, in seconds.
CHECKPOINT_INTERVAL_S = 2.0

RUN_STATUS: dict[str, EndedRunStatus] = {
    "stop": "complete", "length": "complete", "tool_limit": "complete", "max_iterations": "complete",
    "cancelled": "interrupted", "error": "error",
}
# Finish reason stored on an assistant message that asked for tools and was followed by another model call.
TOOL_CALLS_FINISH = "tool_calls"


@dataclass(frozen=True)
class RunIds:
    run_id: str
    user_message_id: int


@dataclass
class _Turn:
    """What one model call (one iteration) produced."""

    iteration: int
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    text_length: int = 0
    calls: list[tuple[ToolCallInfo, int]] = field(default_factory=list)
    usage: dict[str, int] | None = None
    calls_ignored: bool = False
    message_id: int | None = None

    @property
    def has_output(self) -> bool:
        return bool(self.text or self.reasoning or self.calls)


class RunRecorder:
    def __init__(self, history: History, conversation_id: int, *, secrets: Iterable[str] = (),
                 resume: ResumePoint | None = None, checkpoint_interval: float = CHECKPOINT_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """``resume``: where the caller read the conversation up to for the request's context; the user message
        is stored right there (None: the resume point when ``begin`` writes)."""
        if resume is not None and resume.conversation_id != conversation_id:
            raise ValueError(f"the resume point is in conversation {resume.conversation_id}, not {conversation_id}")
        self.history = history
        self.conversation_id = conversation_id
        self.resume = resume
        self.secrets = [s for s in secrets if s]
        self.checkpoint_interval = checkpoint_interval
        self.clock = clock
        self.ids: RunIds | None = None
        self._after: int | None = None  # the answer this run continues (begin's ``after``)
        self.save_error: StorageError | None = None
        self.checkpoint_error: StorageError | None = None
        self.saved = False
        self._reset()

    def _reset(self) -> None:
        self._active = False
        self._turns: dict[int, _Turn] = {}
        self._results: dict[tuple[int, str], ToolResult] = {}
        self._events: list[RunEvent] = []
        self._error: RunError | None = None
        self._usage_unknown = False  # a model call finished without reporting usage
        self._costs: list[float | None] = []  # each usage event's cost_usd
        self._provider: str | None = None
        self._model: str | None = None
        self._dirty = False
        self._last_checkpoint = self.clock()

    @property
    def active(self) -> bool:
        return self._active

    # --- start ----------------------------------------------------------------------------------------
    def begin(self, user_text: str | None, *, reply_to: int | None = None, run_id: str | None = None,
              provider: str | None = None, model: str | None = None, after: int | None = None,
              attachments: Sequence[PreparedAttachment] = ()) -> RunIds:
        """Write the user message and the run row, before the request is sent.

        The user message goes after the resume point given to the recorder (the one its request's context was
        read up to), else after ``History.resume_point`` read inside this same write transaction.
        ``user_text=None`` regenerates: the answer becomes a new reply to ``reply_to`` (a user message), next to
        any earlier answers. ``after`` (with ``reply_to``) continues an answer stopped early: the new assistant
        messages follow that message of the answer, so the view shows one answer. ``attachments`` go into the
        attachment store first, then their rows with the user message.
        Raises StorageError when they cannot be written; then no request should be sent.
        """
        if self._active:
            raise RuntimeError("a run is already being recorded; it must end (done) before the next begins")
        if user_text is None and reply_to is None:
            raise ValueError("begin() needs the user's text, or reply_to when regenerating an answer")
        self._reset()
        self.saved = False
        self.save_error = self.checkpoint_error = None
        run_id = run_id or uuid.uuid4().hex
        db = self.history.db
        if attachments and user_text is not None:
            attachment_rows.store_files(self.history.attachments, (a.stored for a in attachments), self.history.path)
        with storage_errors(self.history.path, "save your message"), write_transaction(db):
            now = now_ms()
            if user_text is not None:
                parent = self._parent()
                cursor = db.execute(
                    "INSERT INTO messages (conversation_id, parent_id, role, content, status, created_at, "
                    "updated_at) VALUES (?, ?, 'user', ?, 'complete', ?, ?)",
                    [self.conversation_id, parent, replace_secrets(user_text, self.secrets), now, now])
                anchor = inserted_id(cursor)
                attachment_rows.insert_rows(db, anchor, [a.part for a in attachments])
            else:
                assert reply_to is not None  # checked above: no user text means a regeneration
                anchor = self._reply_anchor(reply_to)
            if after is not None:
                self._continue_anchor(after)
            db.execute("INSERT INTO runs (id, conversation_id, user_message_id, provider, model, status, "
                       "started_at, owner_pid) VALUES (?, ?, ?, ?, ?, 'running', ?, ?)",
                       [run_id, self.conversation_id, anchor, provider, model, now, os.getpid()])
            db.execute("UPDATE conversations SET current_leaf_id = ?, updated_at = ? WHERE id = ?",
                       [after or anchor, now, self.conversation_id])
        self.ids = RunIds(run_id, anchor)
        self._after = after
        self._provider, self._model = provider, model
        self._active = True
        self._last_checkpoint = self.clock()
        return self.ids

    def _parent(self) -> int | None:
        """The message the new user message follows, read inside the writing transaction."""
        if self.resume is None:
            return self.history.resume_point(self.conversation_id).message_id
        self.history.conversation(self.conversation_id)  # NotFoundError if it was deleted meanwhile
        parent = self.resume.message_id
        if parent is not None:
            self.history.message_in(self.conversation_id, parent)  # still there, and part of it
        return parent

    def _continue_anchor(self, message_id: int) -> None:
        record = self.history.message(message_id)
        if record.conversation_id != self.conversation_id or record.role != "assistant":
            raise ValueError(f"message {message_id} is not an answer of conversation {self.conversation_id}")

    def _reply_anchor(self, message_id: int) -> int:
        record = self.history.message(message_id)  # read inside begin's write transaction
        if record.conversation_id != self.conversation_id or record.role != "user":
            raise ValueError(f"message {message_id} is not a user message of conversation {self.conversation_id}")
        return record.id

    # --- events ---------------------------------------------------------------------------------------
    def _turn(self, iteration: int) -> _Turn:
        turn = self._turns.get(iteration)
        if turn is None:
            turn = self._turns[iteration] = _Turn(iteration)
        return turn

    def __call__(self, event: RunEvent) -> None:
        if not self._active:
            raise RuntimeError("RunRecorder received an event before begin() or after done")
        self._events.append(event)
        match event:
            case RunStarted():
                self._provider, self._model = event.provider, event.model
            case ContentDelta():
                turn = self._turn(event.iteration)
                turn.text.append(event.content)
                turn.text_length += len(event.content)
                self._dirty = True
            case ReasoningDelta():
                self._turn(event.iteration).reasoning.append(event.content)
                self._dirty = True
            case ToolCalls():
                turn = self._turn(event.iteration)
                turn.calls.extend((call, turn.text_length) for call in event.calls)
            case ToolResult():
                self._results[(event.iteration, event.id)] = event
            case Usage():
                turn = self._turn(event.iteration)
                counts = {"input_tokens": event.input_tokens, "output_tokens": event.output_tokens,
                          "reasoning_tokens": event.reasoning_tokens, "cached_tokens": event.cached_tokens}
                turn.usage = {k: (turn.usage or {}).get(k, 0) + v for k, v in counts.items()}
                if event.cache_write_tokens:
                    written = turn.usage.get("cache_write_tokens", 0) + event.cache_write_tokens
                    turn.usage["cache_write_tokens"] = written
                self._costs.append(event.cost_usd)
            case ModelCallFinished():
                if event.input_tokens is None:
                    self._usage_unknown = True
            case RunWarning():
                if event.code == "TOOL_CALLS_IGNORED":
                    self._turn(event.iteration).calls_ignored = True
            case RunError():
                self._error = event
            case Done():
                self._finish(event.finish_reason)
                return
            case ToolExecuting() | ModelCallStarted() | ModelExchange():
                pass
            case _:
                assert_never(event)
        if self._dirty:
            self.checkpoint_if_due()

    # --- checkpoints ----------------------------------------------------------------------------------
    def checkpoint_if_due(self) -> bool:
        """Write the partial answer if it changed and the interval has passed; returns whether it wrote."""
        if not (self._active and self._dirty) or self.clock() - self._last_checkpoint < self.checkpoint_interval:
            return False
        return self.checkpoint()

    def seconds_until_due(self) -> float:
        """How long until a checkpoint can next be due (zero when the interval has already passed)."""
        return max(0.0, self._last_checkpoint + self.checkpoint_interval - self.clock())

    def checkpoint(self) -> bool:
        """Write the partial answer now (status ``streaming``). A failure is kept in ``checkpoint_error``."""
        if not self._active:
            return False
        self._last_checkpoint = self.clock()
        row_ids = self._row_ids()
        try:
            with storage_errors(self.history.path, "save the partial answer"), write_transaction(self.history.db):
                leaf = self._write_turns(final=None)
                self.history.db.execute("UPDATE conversations SET current_leaf_id = ? WHERE id = ?",
                                        [leaf, self.conversation_id])
        except StorageError as exc:
            self.checkpoint_error = exc
            self._restore_row_ids(row_ids)
            return False
        self._dirty = False
        self.checkpoint_error = None
        return True

    def _row_ids(self) -> dict[int, int | None]:
        return {iteration: turn.message_id for iteration, turn in self._turns.items()}

    def _restore_row_ids(self, row_ids: dict[int, int | None]) -> None:
        """After a rolled-back write, forget the message ids it had assigned."""
        for iteration, turn in self._turns.items():
            turn.message_id = row_ids.get(iteration)

    # --- the end --------------------------------------------------------------------------------------
    def _finish(self, finish_reason: FinishReason) -> None:
        assert self.ids is not None
        run_status = RUN_STATUS[finish_reason]
        db = self.history.db
        row_ids = self._row_ids()
        try:
            with storage_errors(self.history.path, "save the answer"), write_transaction(db):
                leaf = self._write_turns(final=(run_status, finish_reason))
                self._write_tools()
                self._write_run(run_status, finish_reason)
                self._write_events()
                db.execute("UPDATE conversations SET current_leaf_id = ?, updated_at = ?, "
                           "provider = COALESCE(?, provider), model = COALESCE(?, model) WHERE id = ?",
                           [leaf, now_ms(), self._provider, self._model, self.conversation_id])
        except StorageError as exc:
            self.save_error = exc
            self._restore_row_ids(row_ids)
        else:
            self.saved = True
        self._active = False

    @staticmethod
    def _message_status(turn: _Turn, last: _Turn, final: tuple[EndedRunStatus, str] | None
                        ) -> tuple[MessageStatus, str | None]:
        if final is None:
            return "streaming", None
        if turn is not last:
            return "complete", TOOL_CALLS_FINISH
        return final

    def _stored_text(self, pieces: list[str], status: MessageStatus) -> str:
        """Streamed text with the known secrets replaced. Text that stopped early (a checkpoint, a run cut off)
        may end in the start of a key still on its way: that end is left out, so no part of a key is written."""
        text = replace_secrets("".join(pieces), self.secrets)
        if status == "complete":
            return text
        return withhold_secret_start(text, self.secrets)[0]

    def _write_turns(self, final: tuple[EndedRunStatus, str] | None) -> int:
        """Insert or update one assistant message per model call; returns the id of the last one (the leaf)."""
        assert self.ids is not None
        db = self.history.db
        turns = [t for _, t in sorted(self._turns.items()) if t.has_output]
        parent = self._after or self.ids.user_message_id
        now = now_ms()
        for turn in turns:
            status, finish_reason = self._message_status(turn, turns[-1], final)
            content = self._stored_text(turn.text, status)
            reasoning = self._stored_text(turn.reasoning, status)
            usage = json.dumps(turn.usage) if turn.usage else None
            if turn.message_id is None:
                cursor = db.execute(
                    "INSERT INTO messages (conversation_id, parent_id, run_id, role, content, reasoning, status, "
                    "finish_reason, model, usage, created_at, updated_at) "
                    "VALUES (?, ?, ?, 'assistant', ?, ?, ?, ?, ?, ?, ?, ?)",
                    [self.conversation_id, parent, self.ids.run_id, content, reasoning, status, finish_reason,
                     self._model, usage, now, now])
                turn.message_id = inserted_id(cursor)
            else:
                db.execute("UPDATE messages SET content = ?, reasoning = ?, status = ?, finish_reason = ?, "
                           "usage = ?, updated_at = ? WHERE id = ?",
                           [content, reasoning, status, finish_reason, usage, now, turn.message_id])
            parent = turn.message_id
        return parent

    def _write_tools(self) -> None:
        db = self.history.db
        for turn in self._turns.values():
            if turn.message_id is None or turn.calls_ignored:
                continue
            for position, (call, offset) in enumerate(turn.calls):
                cursor = db.execute(
                    "INSERT INTO tool_calls (message_id, position, call_id, name, arguments, text_offset) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [turn.message_id, position, call.id, call.name, replace_secrets(call.arguments, self.secrets),
                     offset])
                result = self._results.get((turn.iteration, call.id))
                if result is None:
                    continue
                data = None if result.data is None else replace_secrets(json.dumps(result.data), self.secrets)
                db.execute("INSERT INTO tool_outputs (tool_call_id, status, content, duration_ms, truncated, data) "
                           "VALUES (?, ?, ?, ?, ?, ?)",
                           [cursor.lastrowid, result.status, replace_secrets(result.result, self.secrets),
                            result.duration_ms, int(result.truncated), data])

    def _write_run(self, status: RunStatus, finish_reason: str) -> None:
        assert self.ids is not None
        reported = [t.usage for t in self._turns.values() if t.usage]
        keys = ("input_tokens", "output_tokens", "reasoning_tokens", "cached_tokens")
        # Unknown (NULL), not 0, when no call reported usage or a completed call reported none.
        totals: dict[str, int | None] = (dict.fromkeys(keys) if not reported or self._usage_unknown
                                         else {k: sum(u.get(k, 0) for u in reported) for k in keys})
        # The run's cost: the calls' sum; unknown when any call's price or usage was.
        cost = (None if totals["input_tokens"] is None or any(c is None for c in self._costs)
                else sum(c for c in self._costs if c is not None))
        iterations = max((e.iteration for e in self._events), default=0)
        error = None
        if self._error is not None:
            error = json.dumps({"code": self._error.code, "status": self._error.status,
                                "message": redact_text(self._error.message, self.secrets)})
        self.history.db.execute(
            "UPDATE runs SET status = ?, finish_reason = ?, ended_at = ?, iterations = ?, input_tokens = ?, "
            "output_tokens = ?, reasoning_tokens = ?, cached_tokens = ?, error = ?, provider = ?, model = ?, "
            "cost_usd = ?, priced_at = ? WHERE id = ?",
            [status, finish_reason, now_ms(), iterations, totals["input_tokens"], totals["output_tokens"],
             totals["reasoning_tokens"], totals["cached_tokens"], error, self._provider, self._model,
             cost, now_ms(), self.ids.run_id])

    def _write_events(self) -> None:
        assert self.ids is not None
        redacted: list[RunEvent] = []
        emit = RedactingEmitter(redacted.append, self.secrets)  # also a key split across streamed pieces
        for event in self._events:
            emit(event)
        emit.flush()
        rows = [(self.ids.run_id, e.seq, e.type, e.iteration, e.ts, redact_text(event_json(e), self.secrets))
                for e in redacted]
        self.history.db.conn.executemany(
            "INSERT OR REPLACE INTO run_events (run_id, seq, type, iteration, ts, event) VALUES (?, ?, ?, ?, ?, ?)",
            rows)
