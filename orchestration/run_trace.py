"""The run trace: what one run did, built from the same run events the chat view gets (docs/events.md).

``RunTrace.apply(event)`` folds events, one at a time, into model calls (request summary, time to first token,
duration, tokens, finish reason, the assembled answer) with the tool calls each one asked for nested under it
(arguments, status transitions queued > executing > ok|error|timeout|denied, or queued > not run, with timestamps,
duration, result, truncation) and warnings where they happened. The same code serves a run streaming now and a run
read back from the database, so the inspector is only a view over this. It folds the typed event union
(``RunEvent``) and keeps the events it folded as they are; a stored run is read into the union first
(``from_stored``, through orchestration/stored_events.py, which names what it could not read in ``unread_note``).
The request and response bodies on the wire stay what the capture made them (redacted JSON text). Everything shown
or exported goes through ``redact_text`` with the run's secrets.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, assert_never

from orchestration.bounded_json import loads_bounded
from orchestration.redaction import redact_body, redact_text

if TYPE_CHECKING:  # the window's first frame imports this module (inspector) and must not load pydantic (issue 17)
    from orchestration.events import ModelCallFinished, ModelCallStarted, ModelExchange, RunError, RunEvent

TRACE_FORMAT = "parley-run-trace/1"
REQUEST_FIELDS: Final = ("model", "message_count", "tools", "tool_choice", "stream", "reasoning_effort",
                         "max_output_tokens")
_ENVELOPE: Final = frozenset({"v", "run_id", "seq", "type", "iteration"})  # left out of a call's finished/exchange
COSTLESS_VERSIONS: Final = frozenset({"1.1", "1.2", "1.3"})  # contract versions whose events carry no cost


NOT_RUN: Final = "not run"  # a tool call the loop never ran (the final answer call's, or one the run ended before)
IGNORED_CODE: Final = "TOOL_CALLS_IGNORED"  # the warning that the final answer call's tool calls were not run
ENDED_FIRST: Final = "The run ended before this call ran."


@dataclass
class StatusChange:
    status: str  # queued, executing, ok, error, timeout, denied, not run
    ts: int


@dataclass
class ToolCallTrace:
    id: str
    name: str
    arguments: str
    changes: list[StatusChange] = field(default_factory=list)
    result: str | None = None
    duration_ms: int | None = None
    truncated: bool = False
    category: str | None = None

    @property
    def status(self) -> str:
        return self.changes[-1].status if self.changes else "queued"


@dataclass
class WarningTrace:
    code: str
    message: str
    ts: int


@dataclass
class ModelCallTrace:
    iteration: int
    started_ts: int
    started: ModelCallStarted | None = None  # None for a call of an older stored run that sent none
    finished: ModelCallFinished | None = None
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    tools: list[ToolCallTrace] = field(default_factory=list)
    warnings: list[WarningTrace] = field(default_factory=list)
    outcome: str = "streaming"  # streaming, finished, error, cancelled
    exchange: ModelExchange | None = None  # the request and response as on the wire

    @property
    def request(self) -> dict[str, Any]:
        """What the request asked for, in summary (the model_call_started event's fields); {} when unknown."""
        if self.started is None:
            return {}
        return {k: getattr(self.started, k) for k in REQUEST_FIELDS}

    @property
    def duration_ms(self) -> int | None:
        return None if self.finished is None else self.finished.duration_ms

    @property
    def first_token_ms(self) -> int | None:
        return None if self.finished is None else self.finished.first_token_ms

    @property
    def cost_recorded(self) -> bool:
        """Whether the call's cost was recorded at all: events stored before contract 1.4 carry none (shown
        blank, not as unknown)."""
        return self.finished is not None and self.finished.v not in COSTLESS_VERSIONS

    def finished_fields(self) -> dict[str, Any] | None:
        return None if self.finished is None else _fields(self.finished, _ENVELOPE)

    def exchange_fields(self) -> dict[str, Any] | None:
        return None if self.exchange is None else _fields(self.exchange, _ENVELOPE | {"ts"})

    def response(self) -> dict[str, Any]:
        """The answer as the loop assembled it (not the deltas it streamed in)."""
        finished = self.finished_fields() or {}
        usage = {k: finished.get(k) for k in ("input_tokens", "output_tokens", "reasoning_tokens",
                                                  "cached_tokens", "cost_usd")}
        return {
            "outcome": self.outcome,
            "finish_reason": finished.get("finish_reason"),
            "native_finish_reason": finished.get("native_finish_reason"),
            "first_token_ms": self.first_token_ms,
            "duration_ms": self.duration_ms,
            "usage": usage,
            "reasoning": "".join(self.reasoning) or None,
            "text": "".join(self.text),
            "tool_calls": [{"id": t.id, "name": t.name, "arguments": _json_or_text(t.arguments)}
                           for t in self.tools],
        }


def _is_delta(event: RunEvent) -> bool:
    from orchestration.events import ContentDelta, ReasoningDelta  # here: see the TYPE_CHECKING note above

    return isinstance(event, ContentDelta | ReasoningDelta)


def _fields(event: RunEvent, leave_out: frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in event.model_dump(mode="json").items() if k not in leave_out}


@dataclass
class RunSummary:
    """One line of the run list: from the trace while live, from the stored run row afterwards."""

    run_id: str
    started_ms: int
    ended_ms: int | None
    iterations: int
    finish_reason: str | None
    input_tokens: int | None  # None: unknown (a call reported no usage)
    output_tokens: int | None
    error: str | None = None

    def label(self) -> str:
        start = datetime.fromtimestamp(self.started_ms / 1000).strftime("%Y-%m-%d %H:%M:%S")
        duration = "running" if self.ended_ms is None else f"{(self.ended_ms - self.started_ms) / 1000:.1f} s"
        calls = f"{self.iterations} call{'s' if self.iterations != 1 else ''}"
        tokens = tokens_text(self.input_tokens, self.output_tokens, cancelled=self.finish_reason == "cancelled")
        parts = [start, duration, calls, self.finish_reason or "…", tokens]
        if self.error:
            parts.append(f"error: {self.error}")
        return " · ".join(parts)


def count_text(count: int | None) -> str:
    """A token count as shown: "unknown" when the provider did not report it."""
    return "unknown" if count is None else f"{count:,}"


CANCELLED_BEFORE_USAGE = "cancelled before usage was reported"
COUNTED_BEFORE_STOP = "counted before the stop"


def tokens_text(input_tokens: int | None, output_tokens: int | None, *, cancelled: bool) -> str:
    """A run's or a call's tokens, ``1,234 in · 56 out``. A run stopped with Stop says what it knows: the tokens
    the calls that finished reported (the stopped call's own usage never arrives), or that it was cancelled
    before any usage was reported, rather than calling its tokens unknown."""
    counts = f"{count_text(input_tokens)} in · {count_text(output_tokens)} out"
    if not cancelled:
        return counts
    if input_tokens is None and output_tokens is None:
        return CANCELLED_BEFORE_USAGE
    return f"{counts} ({COUNTED_BEFORE_STOP})"


def total(counts: Iterable[int | None]) -> int | None:
    """The sum of per-call counts; None (unknown) when any is unknown or there are none."""
    values = list(counts)
    if not values or any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None)


def _json_or_text(raw: str) -> Any:
    try:
        return loads_bounded(raw, what="the arguments") if raw.strip() else {}
    except ValueError:  # not JSON or past the limits: shown as the text it is
        return raw


class RunTrace:
    def __init__(self, secrets: list[str] | None = None) -> None:
        self.secrets = list(secrets or [])
        self.run_id: str | None = None
        self.provider: str | None = None
        self.model: str | None = None
        self.started_ts: int | None = None
        self.ended_ts: int | None = None
        self.finish_reason: str | None = None
        self.error: RunError | None = None
        self.calls: list[ModelCallTrace] = []
        self.run_warnings: list[WarningTrace] = []
        self.events: list[RunEvent] = []  # every event folded except usage (model_call_finished carries it)
        self.unread_note: str | None = None  # a stored run's events that could not be read (stored_events.py)
        self._tools: dict[str, ToolCallTrace] = {}

    @classmethod
    def from_events(cls, events: Iterable[RunEvent], secrets: list[str] | None = None) -> RunTrace:
        trace = cls(secrets)
        for event in events:
            trace.apply(event)
        return trace

    @classmethod
    def from_stored(cls, stored: Iterable[Mapping[str, Any]], secrets: list[str] | None = None) -> RunTrace:
        """A run read back from the database (its stored JSON objects); what could not be read is skipped and
        named in ``unread_note``."""
        from orchestration.stored_events import read_stored

        read = read_stored(stored)
        trace = cls.from_events(read.events, secrets)
        trace.unread_note = read.note()
        return trace

    # --- folding ------------------------------------------------------------------------------------
    def _call_for(self, iteration: int, ts: int) -> ModelCallTrace:
        """The latest model call of an iteration; events of a call that sent no model_call_started (older
        stored runs) get one made up from their iteration."""
        for call in reversed(self.calls):
            if call.iteration == iteration:
                return call
        call = ModelCallTrace(iteration=iteration, started_ts=ts)
        self.calls.append(call)
        return call

    def apply(self, event: RunEvent) -> None:
        from orchestration import events as ev  # here, not at the top: pydantic stays off the first frame

        ts, iteration = event.ts, event.iteration
        match event:
            case ev.RunStarted():
                self.run_id, self.provider, self.model = event.run_id, event.provider, event.model
                self.started_ts = ts
            case ev.ModelCallStarted():
                self.calls.append(ModelCallTrace(iteration=iteration, started_ts=ts, started=event))
            case ev.ModelCallFinished():
                call = self._call_for(iteration, ts)
                call.finished = event
                call.outcome = "finished"
            case ev.ModelExchange():
                self._call_for(iteration, ts).exchange = event
            case ev.ContentDelta():
                self._call_for(iteration, ts).text.append(event.content)
            case ev.ReasoningDelta():
                self._call_for(iteration, ts).reasoning.append(event.content)
            case ev.ToolCalls():
                call = self._call_for(iteration, ts)
                for info in event.calls:
                    tool = ToolCallTrace(id=info.id, name=info.name, arguments=info.arguments,
                                         changes=[StatusChange("queued", ts)])
                    call.tools.append(tool)
                    self._tools[tool.id] = tool
            case ev.ToolExecuting():
                tool = self._tool(event.id, event.name, iteration, ts)
                tool.changes.append(StatusChange("executing", ts))
                tool.category = event.category
            case ev.ToolResult():
                tool = self._tool(event.id, event.name, iteration, ts)
                tool.changes.append(StatusChange(event.status, ts))
                tool.result, tool.duration_ms = event.result, event.duration_ms
                tool.truncated, tool.category = event.truncated, event.category
            case ev.RunWarning():
                warning = WarningTrace(event.code, event.message, ts)
                if iteration == 0:
                    self.run_warnings.append(warning)
                else:
                    self._call_for(iteration, ts).warnings.append(warning)
                    if event.code == IGNORED_CODE:  # the call's tools will never run: say so, with the reason
                        self._not_run(self._call_for(iteration, ts).tools, event.message, ts)
            case ev.RunError():
                self.error = event
                if self.calls and self.calls[-1].outcome == "streaming":
                    self.calls[-1].outcome = "error"
            case ev.Done():
                self.finish_reason, self.ended_ts = event.finish_reason, ts
                for call in self.calls:
                    if call.outcome == "streaming":
                        call.outcome = "cancelled" if self.finish_reason == "cancelled" else "error"
                    self._not_run(call.tools, ENDED_FIRST, ts)  # nothing runs after the end
            case ev.Usage():
                return  # carried by model_call_finished
            case _:
                assert_never(event)
        self.events.append(event)

    @staticmethod
    def _not_run(tools: Iterable[ToolCallTrace], reason: str, ts: int) -> None:
        """Tool calls still queued will not run: status ``not run``, the reason as their result."""
        for tool in tools:
            if tool.status == "queued":
                tool.changes.append(StatusChange(NOT_RUN, ts))
                tool.result = reason

    def _tool(self, call_id: str, name: str, iteration: int, ts: int) -> ToolCallTrace:
        tool = self._tools.get(call_id)
        if tool is None:  # a result without its tool_calls event (should not happen): keep it visible anyway
            tool = ToolCallTrace(id=call_id, name=name, arguments="")
            self._call_for(iteration, ts).tools.append(tool)
            self._tools[tool.id] = tool
        return tool

    def error_fields(self) -> dict[str, Any] | None:
        """The run's error as shown and exported: code, status, message, retryable."""
        error = self.error
        if error is None:
            return None
        return {"code": error.code, "status": error.status, "message": error.message, "retryable": error.retryable}

    # --- reading ------------------------------------------------------------------------------------
    def summary(self) -> RunSummary:
        finished = [c.finished for c in self.calls if c.finished]
        error = None if self.error is None else self.redact(self.error.message or "")
        return RunSummary(
            run_id=self.run_id or "", started_ms=self.started_ts or 0, ended_ms=self.ended_ts,
            iterations=len({c.iteration for c in self.calls}), finish_reason=self.finish_reason,
            input_tokens=total(f.input_tokens for f in finished),
            output_tokens=total(f.output_tokens for f in finished), error=error)

    def call_tokens_text(self, call: ModelCallTrace) -> str:
        """One model call's tokens for the timeline: ``1,234/56 tokens``, or why a stopped call has none."""
        if call.outcome == "cancelled":
            return CANCELLED_BEFORE_USAGE
        finished = call.finished
        inputs, outputs = (finished.input_tokens, finished.output_tokens) if finished else (None, None)
        return f"{count_text(inputs)}/{count_text(outputs)} tokens"

    def redact(self, text: str) -> str:
        return redact_text(text, self.secrets)

    def pretty(self, value: Any) -> str:
        """Formatted JSON with credentials (known secrets, key-like fields and URL parts) hidden."""
        return self.redact(json.dumps(redact_body(value), indent=2, ensure_ascii=False))

    def request_json(self, call: ModelCallTrace) -> str:
        return self.pretty({"iteration": call.iteration, "provider": self.provider, **call.request})

    def response_json(self, call: ModelCallTrace) -> str:
        return self.pretty(call.response())

    def sent_text(self, call: ModelCallTrace) -> str | None:
        """The request body as sent (formatted when it was kept whole), with a header line; None when the call
        has no wire record (older runs, scripted models)."""
        wire = call.exchange
        if wire is None:
            return None
        attempts = wire.attempts
        head = f"{wire.method} {wire.path}" + (f" ({attempts} attempts)" if attempts > 1 else "")
        body = wire.request_body
        omitted = wire.request_omitted_chars
        if omitted:
            body += f"\n[cut: {omitted} more characters]"
        elif body.startswith("{"):
            with contextlib.suppress(ValueError):  # the capture wrote it as JSON; shown as it is otherwise
                body = json.dumps(loads_bounded(body, what="the request body"), indent=2, ensure_ascii=False)
        return self.redact(f"{head}\n{body}")

    def received_text(self, call: ModelCallTrace) -> str | None:
        """The response as received (SSE, NDJSON or JSON, verbatim up to the capture limit), with its status."""
        wire = call.exchange
        if wire is None:
            return None
        status = wire.status
        head = (f"HTTP {status} {wire.content_type or ''}".rstrip() if status is not None
                else "no response arrived")
        body = wire.response_body
        omitted = wire.response_omitted_bytes
        if omitted:
            body += f"\n[cut: {omitted} more bytes]"
        return self.redact(f"{head}\n{body}")

    def tool_json(self, tool: ToolCallTrace) -> str:
        return self.pretty({
            "id": tool.id, "name": tool.name, "arguments": _json_or_text(tool.arguments), "status": tool.status,
            "transitions": [self._transition(c) for c in tool.changes],
            "duration_ms": tool.duration_ms, "truncated": tool.truncated, "result": tool.result})

    def _transition(self, change: StatusChange) -> dict[str, Any]:
        """A status change as milliseconds after the run started and the local clock time, not epoch ms."""
        clock = datetime.fromtimestamp(change.ts / 1000).strftime("%H:%M:%S.%f")[:-3]
        if self.started_ts is None:
            return {"status": change.status, "time": clock}
        return {"status": change.status, "after_start_ms": change.ts - self.started_ts, "time": clock}

    def export(self) -> str:
        """The whole run as one JSON document: the summary, the model calls with their tools, and every event
        except the streamed deltas (whose text is in each call's response)."""
        return self.pretty({
            "format": TRACE_FORMAT,
            "run_id": self.run_id, "provider": self.provider, "model": self.model,
            "started_ts": self.started_ts, "ended_ts": self.ended_ts, "finish_reason": self.finish_reason,
            "error": self.error_fields(),
            "warnings": [w.__dict__ for w in self.run_warnings],
            "model_calls": [{"request": {"iteration": c.iteration, **c.request}, "response": c.response(),
                             "exchange": c.exchange_fields(),
                             "warnings": [w.__dict__ for w in c.warnings],
                             "tools": [json.loads(self.tool_json(t)) for t in c.tools]} for c in self.calls],
            "events": [e.model_dump(mode="json") for e in self.events if not _is_delta(e)],
        })
