"""The run trace: what one run did, built from the same run events the chat view gets (docs/events.md).

``RunTrace.apply(event)`` folds events, one at a time, into model calls (request summary, time to first token,
duration, tokens, finish reason, the assembled answer) with the tool calls each one asked for nested under it
(arguments, status transitions queued > executing > ok|error|timeout|denied with timestamps, duration, result,
truncation) and warnings where they happened. The same code serves a run streaming now and a run read back from
the database, so the inspector is only a view over this. Events may be pydantic events or their stored JSON
objects; unknown types are skipped. Everything shown or exported goes through ``redact_text`` with the run's
secrets.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from orchestration.bounded_json import loads_bounded
from orchestration.redaction import redact_body, redact_text

TRACE_FORMAT = "parley-run-trace/1"


@dataclass
class StatusChange:
    status: str  # queued, executing, ok, error, timeout, denied
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
    request: dict[str, Any] = field(default_factory=dict)
    finished: dict[str, Any] | None = None
    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    tools: list[ToolCallTrace] = field(default_factory=list)
    warnings: list[WarningTrace] = field(default_factory=list)
    outcome: str = "streaming"  # streaming, finished, error, cancelled
    exchange: dict[str, Any] | None = None  # the model_exchange event's fields: the request and response as on the wire

    @property
    def duration_ms(self) -> int | None:
        return None if self.finished is None else self.finished.get("duration_ms")

    @property
    def first_token_ms(self) -> int | None:
        return None if self.finished is None else self.finished.get("first_token_ms")

    def response(self) -> dict[str, Any]:
        """The answer as the loop assembled it (not the deltas it streamed in)."""
        finished = self.finished or {}
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


def _as_dict(event: Any) -> dict[str, Any]:
    return event if isinstance(event, dict) else event.model_dump(mode="json")


class RunTrace:
    def __init__(self, secrets: list[str] | None = None) -> None:
        self.secrets = list(secrets or [])
        self.run_id: str | None = None
        self.provider: str | None = None
        self.model: str | None = None
        self.started_ts: int | None = None
        self.ended_ts: int | None = None
        self.finish_reason: str | None = None
        self.error: dict[str, Any] | None = None
        self.calls: list[ModelCallTrace] = []
        self.run_warnings: list[WarningTrace] = []
        self.events: list[dict[str, Any]] = []
        self._tools: dict[str, ToolCallTrace] = {}

    @classmethod
    def from_events(cls, events: list[Any], secrets: list[str] | None = None) -> RunTrace:
        trace = cls(secrets)
        for event in events:
            trace.apply(event)
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

    def apply(self, event: Any) -> None:
        data = _as_dict(event)
        kind, ts, iteration = data.get("type"), int(data.get("ts", 0)), int(data.get("iteration", 0))
        if kind == "run_started":
            self.run_id, self.provider, self.model = data["run_id"], data.get("provider"), data.get("model")
            self.started_ts = ts
        elif kind == "model_call_started":
            request = {k: data.get(k) for k in ("model", "message_count", "tools", "tool_choice", "stream",
                                                "reasoning_effort", "max_output_tokens")}
            self.calls.append(ModelCallTrace(iteration=iteration, started_ts=ts, request=request))
        elif kind == "model_call_finished":
            call = self._call_for(iteration, ts)
            call.finished = {k: v for k, v in data.items() if k not in ("v", "run_id", "seq", "type", "iteration")}
            call.outcome = "finished"
        elif kind == "model_exchange":
            self._call_for(iteration, ts).exchange = {
                k: v for k, v in data.items() if k not in ("v", "run_id", "seq", "ts", "type", "iteration")}
        elif kind in ("content", "reasoning"):
            call = self._call_for(iteration, ts)
            (call.text if kind == "content" else call.reasoning).append(data.get("content", ""))
        elif kind == "tool_calls":
            call = self._call_for(iteration, ts)
            for info in data.get("calls", []):
                tool = ToolCallTrace(id=info["id"], name=info["name"], arguments=info.get("arguments", ""),
                                     changes=[StatusChange("queued", ts)])
                call.tools.append(tool)
                self._tools[tool.id] = tool
        elif kind == "tool_executing":
            tool = self._tool(data, iteration, ts)
            tool.changes.append(StatusChange("executing", ts))
            tool.category = data.get("category")
        elif kind == "tool_result":
            tool = self._tool(data, iteration, ts)
            tool.changes.append(StatusChange(data.get("status", "ok"), ts))
            tool.result, tool.duration_ms = data.get("result"), data.get("duration_ms")
            tool.truncated, tool.category = bool(data.get("truncated")), data.get("category")
        elif kind == "warning":
            warning = WarningTrace(data.get("code", ""), data.get("message", ""), ts)
            if iteration == 0:
                self.run_warnings.append(warning)
            else:
                self._call_for(iteration, ts).warnings.append(warning)
        elif kind == "error":
            self.error = {k: data.get(k) for k in ("code", "status", "message", "retryable")}
            if self.calls and self.calls[-1].outcome == "streaming":
                self.calls[-1].outcome = "error"
        elif kind == "done":
            self.finish_reason, self.ended_ts = data.get("finish_reason"), ts
            for call in self.calls:
                if call.outcome == "streaming":
                    call.outcome = "cancelled" if self.finish_reason == "cancelled" else "error"
        else:
            return  # usage is carried by model_call_finished; unknown types are skipped
        self.events.append(data)

    def _tool(self, data: dict[str, Any], iteration: int, ts: int) -> ToolCallTrace:
        tool = self._tools.get(data["id"])
        if tool is None:  # a result without its tool_calls event (should not happen): keep it visible anyway
            tool = ToolCallTrace(id=data["id"], name=data.get("name", "?"), arguments="")
            self._call_for(iteration, ts).tools.append(tool)
            self._tools[tool.id] = tool
        return tool

    # --- reading ------------------------------------------------------------------------------------
    def summary(self) -> RunSummary:
        finished = [c.finished for c in self.calls if c.finished]
        error = None if self.error is None else self.redact(str(self.error.get("message") or ""))
        return RunSummary(
            run_id=self.run_id or "", started_ms=self.started_ts or 0, ended_ms=self.ended_ts,
            iterations=len({c.iteration for c in self.calls}), finish_reason=self.finish_reason,
            input_tokens=total(f.get("input_tokens") for f in finished),
            output_tokens=total(f.get("output_tokens") for f in finished), error=error)

    def call_tokens_text(self, call: ModelCallTrace) -> str:
        """One model call's tokens for the timeline: ``1,234/56 tokens``, or why a stopped call has none."""
        if call.outcome == "cancelled":
            return CANCELLED_BEFORE_USAGE
        finished = call.finished or {}
        return f"{count_text(finished.get('input_tokens'))}/{count_text(finished.get('output_tokens'))} tokens"

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
        attempts = wire.get("attempts", 1)
        head = f"{wire.get('method')} {wire.get('path')}" + (f" ({attempts} attempts)" if attempts > 1 else "")
        body = str(wire.get("request_body", ""))
        omitted = int(wire.get("request_omitted_chars", 0))
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
        status = wire.get("status")
        head = (f"HTTP {status} {wire.get('content_type') or ''}".rstrip() if status is not None
                else "no response arrived")
        body = str(wire.get("response_body", ""))
        omitted = int(wire.get("response_omitted_bytes", 0))
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
            "error": self.error,
            "warnings": [w.__dict__ for w in self.run_warnings],
            "model_calls": [{"request": {"iteration": c.iteration, **c.request}, "response": c.response(),
                             "exchange": c.exchange,
                             "warnings": [w.__dict__ for w in c.warnings],
                             "tools": [json.loads(self.tool_json(t)) for t in c.tools]} for c in self.calls],
            "events": [e for e in self.events if e.get("type") not in ("content", "reasoning")],
        })
