"""The run event contract (version 1.4): the one stream the loop emits and everything else consumes.

The CLI's ``--json`` output, the chat view, the run trace and the stored run events are all made of these
models. Providers' wire formats never leak past this point. See docs/events.md for the prose version.
"""

from __future__ import annotations

import functools
import json
import re
import time
from typing import Annotated, Any, Final, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError

from orchestration.bounded_json import loads_bounded

CONTRACT_VERSION: Final = "1.4"

ToolStatus = Literal["ok", "error", "timeout", "denied"]
FinishReason = Literal["stop", "length", "tool_limit", "max_iterations", "cancelled", "error"]
ToolCategory = Literal["search", "utility", "file", "mcp", "other"]
ToolVisibility = Literal["primary", "secondary", "hidden"]


CONTRACT_MAJOR: Final = 1  # the major version this build reads: any "1.x", newer minors included (additive)
_VERSION = re.compile(r"(\d{1,6})\.(\d{1,6})")


def contract_major(version: object) -> int | None:
    """The major number of a contract version (``"1.5"`` -> 1), or None when ``version`` is not "N.M"."""
    match = _VERSION.fullmatch(version) if isinstance(version, str) else None
    return None if match is None else int(match.group(1))


def _readable_version(version: str) -> str:
    """Within one major version changes are additive (docs/events.md), so a newer minor's event of a known type
    reads as this version's; another major version may have removed or changed fields and is refused."""
    if contract_major(version) != CONTRACT_MAJOR:
        raise ValueError(f"run event contract {version!r} is not {CONTRACT_MAJOR}.x, which this version reads")
    return version


ContractVersion = Annotated[str, AfterValidator(_readable_version)]


class _Event(BaseModel):
    """Fields every event carries. Unknown fields from newer producers are ignored.

    The models' validators are built when an event is first made or parsed (``defer_build``), not at import:
    building the 13 event models and their union at import cost every start about 2.5 MB and 50 ms, also for a
    window that runs nothing (issue 17)."""

    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)

    v: ContractVersion = CONTRACT_VERSION  # any 1.x: earlier ones parse, a newer one's extra fields are ignored
    run_id: str
    seq: int = Field(ge=0, description="strictly increasing within a run")
    ts: int = Field(description="epoch milliseconds")
    iteration: int = Field(ge=0, description="model call number within the run; 0 before the first call")


class RunStarted(_Event):
    type: Literal["run_started"] = "run_started"
    conversation_id: str | None = None
    provider: str
    model: str


class ReasoningDelta(_Event):
    type: Literal["reasoning"] = "reasoning"
    content: str


class ContentDelta(_Event):
    type: Literal["content"] = "content"
    content: str


class ToolCallInfo(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)

    id: str
    name: str
    arguments: str = Field(description="the raw argument string as the model sent it")


class ToolCalls(_Event):
    type: Literal["tool_calls"] = "tool_calls"
    calls: list[ToolCallInfo]


class ToolExecuting(_Event):
    type: Literal["tool_executing"] = "tool_executing"
    id: str
    name: str
    category: ToolCategory
    visibility: ToolVisibility


class ToolResult(_Event):
    type: Literal["tool_result"] = "tool_result"
    id: str
    name: str
    result: str
    status: ToolStatus
    duration_ms: int
    category: ToolCategory
    visibility: ToolVisibility
    truncated: bool = False
    data: Any = Field(default=None, description="structured result for panes (search results), if the tool has one")


class RunWarning(_Event):
    type: Literal["warning"] = "warning"
    message: str
    code: str


class Usage(_Event):
    type: Literal["usage"] = "usage"
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cached_tokens: int = 0
    # 1.4: input tokens written to a prompt cache (Anthropic bills them above plain input)
    cache_write_tokens: int = 0
    # 1.4: what this model call cost in US dollars; null when the model's price is unknown (never 0 for unknown)
    cost_usd: float | None = None


class ModelCallStarted(_Event):
    """A request is about to be sent: what it asks for, in summary (the messages themselves are not repeated)."""

    type: Literal["model_call_started"] = "model_call_started"
    model: str
    message_count: int
    tools: list[str] = Field(default_factory=list, description="names of the tools offered in this request")
    tool_choice: str = "auto"
    stream: bool = True
    reasoning_effort: str | None = None
    max_output_tokens: int | None = None


class ModelCallFinished(_Event):
    """A model call completed (not emitted when it failed or was cancelled: ``error``/``done`` say so)."""

    type: Literal["model_call_finished"] = "model_call_finished"
    finish_reason: str
    native_finish_reason: str | None = None
    first_token_ms: int | None = Field(None, description="from sending to the first text, reasoning or tool call")
    duration_ms: int
    # null (1.3) when the provider reported no usage for this call: unknown, not 0
    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None  # 1.4: as on the call's ``usage`` event; null when unknown or not reported


class ModelExchange(_Event):
    """What went over the wire for one model call, for the inspector (added in 1.2): the request body as sent
    and the start of the response body as received, each cut to a limit, with credentials redacted. Emitted when
    the call ends (finished, failed or cancelled); not emitted by models that are not reached over HTTP."""

    type: Literal["model_exchange"] = "model_exchange"
    method: str
    path: str = Field(description="relative to the provider's base URL")
    attempts: int = Field(1, description="requests sent (retries included); the bodies are the last attempt's")
    request_body: str = Field(description="the JSON sent, cut to the capture limit")
    request_omitted_chars: int = 0
    status: int | None = Field(None, description="HTTP status; None when no response arrived")
    content_type: str | None = None
    response_body: str = Field("", description="the raw response (SSE, NDJSON or JSON) as received, cut")
    response_omitted_bytes: int = 0


class RunError(_Event):
    type: Literal["error"] = "error"
    message: str
    code: str
    status: int | None = None
    retryable: bool = False


class Done(_Event):
    type: Literal["done"] = "done"
    finish_reason: FinishReason


RunEvent = Annotated[
    RunStarted
    | ReasoningDelta
    | ContentDelta
    | ToolCalls
    | ToolExecuting
    | ToolResult
    | RunWarning
    | Usage
    | ModelCallStarted
    | ModelCallFinished
    | ModelExchange
    | RunError
    | Done,
    Field(discriminator="type"),
]

@functools.cache
def _event_adapter() -> TypeAdapter[RunEvent]:
    """The union's validator, built the first time an event is parsed."""
    return TypeAdapter(RunEvent)


EVENT_TYPES: frozenset[str] = frozenset(
    m.model_fields["type"].default
    for m in (RunStarted, ReasoningDelta, ContentDelta, ToolCalls, ToolExecuting, ToolResult, RunWarning, Usage,
              ModelCallStarted, ModelCallFinished, ModelExchange, RunError, Done)
)


def parse_event(data: str | bytes | dict[str, Any]) -> RunEvent | None:
    """Parse one event; returns None for an event type this version does not know (clients skip those).

    Raises ``pydantic.ValidationError`` for a known type with bad fields, or stamped with a contract version
    whose major number is not ``CONTRACT_MAJOR`` (a newer minor version reads: its unknown fields are ignored).
    """
    obj = loads_bounded(data, what="a run event") if isinstance(data, str | bytes) else data
    if obj.get("type") not in EVENT_TYPES:
        return None
    return _event_adapter().validate_python(obj)


def event_json(event: _Event) -> str:
    """One event as a single JSON line (the ``--json`` wire form). Text with a lone surrogate (a provider's
    ``\\ud800`` escape) cannot be UTF-8, so it is kept as is here and escaped or replaced where it is written."""
    try:
        return event.model_dump_json()
    except PydanticSerializationError:
        return json.dumps(event.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))


def now_ms() -> int:
    return int(time.time() * 1000)


class EventFactory:
    """Stamps run id, sequence number, timestamp and iteration on each event of one run."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.iteration = 0
        self._seq = 0

    def make(self, event_type: type[_Event], /, **fields: Any) -> Any:
        self._seq += 1
        return event_type(run_id=self.run_id, seq=self._seq, ts=now_ms(), iteration=self.iteration, **fields)


__all__ = [
    "CONTRACT_MAJOR",
    "CONTRACT_VERSION",
    "ContentDelta",
    "Done",
    "EventFactory",
    "FinishReason",
    "ModelCallFinished",
    "ModelCallStarted",
    "ModelExchange",
    "ReasoningDelta",
    "RunError",
    "RunEvent",
    "RunStarted",
    "RunWarning",
    "ToolCallInfo",
    "ToolCalls",
    "ToolCategory",
    "ToolExecuting",
    "ToolResult",
    "ToolStatus",
    "ToolVisibility",
    "Usage",
    "ValidationError",
    "contract_major",
    "event_json",
    "parse_event",
]
