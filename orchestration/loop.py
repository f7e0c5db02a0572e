"""The streaming tool loop: call the model, run the tools it asks for, call again, until it answers.

One ``run`` emits the whole event stream of a run (docs/events.md) through ``emit`` and returns what the run
added to the conversation. Guardrails come from ``LoopLimits``. Cancelling the task that awaits ``run``
closes the HTTP stream and any running tools, emits ``done`` with ``cancelled``, and returns the partial
answer instead of raising, so the caller can keep it.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Any, assert_never

from orchestration.engine import (
    ChatAdapter,
    ModelRequest,
    NamedToolChoice,
    ReasoningChunk,
    ResponseComplete,
    ResponseStarted,
    TextChunk,
    TokenUsage,
    ToolCallReady,
    ToolChoice,
    UsageReport,
)
from orchestration.errors import (
    MalformedResponseError,
    ModelCallTimeoutError,
    ProviderError,
    ResponseTooLargeError,
    mentions_tools,
)
from orchestration.events import (
    ContentDelta,
    Done,
    EventFactory,
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
    Usage,
)
from orchestration.limits import MAX_ANSWER_CHARS, LoopLimits
from orchestration.messages import AssistantMessage, Message, ReasoningPart, TextPart
from orchestration.reasoning_effort import ReasoningEffort
from orchestration.tool_api import ToolSet, ToolSpec
from orchestration.tool_selection import select_tools
from orchestration.tool_turn import Approver, Emit, ToolTurn
from orchestration.wire_capture import capture_wire


@dataclass
class RunRequest:
    model: str
    messages: list[Message]
    tool_names: list[str] = field(default_factory=list)
    tool_choice: ToolChoice = "auto"
    parallel_tool_calls: bool | None = None
    stream: bool = True
    reasoning_effort: ReasoningEffort | None = None
    max_output_tokens: int | None = None
    temperature: float | None = None
    response_format: dict[str, Any] | None = None
    conversation_id: str | None = None
    run_id: str | None = None


@dataclass
class RunResult:
    run_id: str
    finish_reason: FinishReason
    new_messages: list[Message]
    iterations: int
    usage: TokenUsage | None  # None when a model call of the run reported no usage (unknown, not 0)
    error: ProviderError | None = None

    @property
    def answer(self) -> str:
        for message in reversed(self.new_messages):
            if isinstance(message, AssistantMessage) and message.text:
                return message.text
        return ""


class _Partial:
    """Text and reasoning of the model call in flight, kept in case it is cut off."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.reasoning: list[str] = []
        self.chars = 0  # text, reasoning and tool arguments so far, against MAX_ANSWER_CHARS

    def message(self) -> AssistantMessage | None:
        parts: list[ReasoningPart | TextPart] = []
        if self.reasoning:
            parts.append(ReasoningPart(text="".join(self.reasoning)))
        if self.text:
            parts.append(TextPart(text="".join(self.text)))
        return AssistantMessage(parts=parts) if parts else None


PriceFn = Callable[[str, TokenUsage], float | None]
"""What one model call cost in US dollars, from the model asked for and its usage; None when unknown."""


class RunLoop:
    def __init__(self, adapter: ChatAdapter, tools: ToolSet, emit: Emit, *, limits: LoopLimits | None = None,
                 approver: Approver | None = None, price: PriceFn | None = None) -> None:
        self.adapter = adapter
        self.price = price  # None: every cost is unknown
        self.tools = tools
        self.limits = limits or LoopLimits()
        self._emit_to = emit
        self.approver = approver

    async def run(self, request: RunRequest) -> RunResult:
        run_id = request.run_id or uuid.uuid4().hex
        events = EventFactory(run_id)
        state = _RunState(run_id)
        self._events = events
        self._emit(events.make(RunStarted, conversation_id=request.conversation_id,
                               provider=self.adapter.provider_name, model=request.model))
        try:
            state.finish = await self._iterate(request, events, state)
        except asyncio.CancelledError:
            state.finish = "cancelled"
            state.keep_partial()
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()
        except ProviderError as error:
            state.finish = "error"
            state.error = error
            if error.partial is not None and (error.partial.parts):
                state.partial_message = error.partial
            state.keep_partial()
            self._emit(events.make(RunError, message=error.user_message, code=error.code, status=error.status,
                                   retryable=error.retryable))
        self._emit(events.make(Done, finish_reason=state.finish))
        return RunResult(run_id=run_id, finish_reason=state.finish, new_messages=state.new_messages,
                         iterations=events.iteration, usage=None if state.usage_unknown else state.usage,
                         error=state.error)

    def _emit(self, event: RunEvent) -> None:
        self._emit_to(event)

    def _warn(self, code: str, message: str) -> None:
        self._emit(self._events.make(RunWarning, code=code, message=message))

    async def _iterate(self, request: RunRequest, events: EventFactory, state: _RunState) -> FinishReason:
        history: list[Message] = list(request.messages)
        offered = [s.name for s in self.tools.specs(request.tool_names)] if request.tool_names else []
        tool_only_streak = 0
        tool_calling_calls = 0
        forced: FinishReason | None = None
        while True:
            events.iteration += 1
            choice: ToolChoice = "none" if forced else _released(request.tool_choice, events.iteration)
            response = await self._call_model(request, history, offered, choice, state)
            message = response.message
            calls = message.tool_calls
            if forced and calls:
                self._warn("TOOL_CALLS_IGNORED", "The model asked for tools in its final answer call; those calls "
                           "were not run.")
                message = message.model_copy(update={"parts": [p for p in message.parts
                                                               if p not in calls]})
            history.append(message)
            state.new_messages.append(message)
            if forced:
                return forced
            if not calls:
                return "length" if response.finish_reason == "length" else "stop"
            tool_calling_calls += 1
            turn = ToolTurn(self.tools, self.limits, events, self._emit, self.approver, state.run_id,
                            request.conversation_id)
            results = await turn.execute(calls, state.sent_tools)  # a tool the model was not sent does not run
            history.extend(results)
            state.new_messages.extend(results)
            tool_only_streak = tool_only_streak + 1 if not message.text.strip() else 0
            if tool_calling_calls >= self.limits.max_iterations:
                forced = "max_iterations"
                self._warn("MAX_ITERATIONS", f"Reached the limit of {self.limits.max_iterations} tool-using "
                           "model calls; asking the model to answer with what it has.")
            elif tool_only_streak >= self.limits.max_tool_only_iterations:
                forced = "tool_limit"
                self._warn("TOOL_ONLY_LIMIT", f"The model called tools {tool_only_streak} times in a row without "
                           "saying anything; asking it to answer with what it has.")

    async def _call_model(self, request: RunRequest, history: list[Message], offered: list[str],
                          choice: ToolChoice, state: _RunState) -> ResponseComplete:
        caps = self.adapter.capabilities.for_model(request.model)
        tools = self.tools.specs(offered) if offered and not state.tools_rejected else []
        tools = self._within_tool_limit(tools, history, caps.max_tools, state)
        state.sent_tools = [t.name for t in tools]
        parallel = request.parallel_tool_calls
        if parallel is None:
            parallel = caps.parallel_tool_calls_default
        response_format = request.response_format
        if response_format is not None and not caps.response_format:
            response_format = None
            if not state.format_warned:
                state.format_warned = True
                self._warn("RESPONSE_FORMAT_UNSUPPORTED", f"{self.adapter.provider_name} does not accept a JSON "
                           "output format for this model; the request was sent without it.")
        model_request = ModelRequest(
            model=request.model, messages=list(history), tools=tools, tool_choice=choice if tools else "auto",
            parallel_tool_calls=parallel if tools else None, stream=request.stream,
            max_output_tokens=request.max_output_tokens, temperature=request.temperature,
            reasoning_effort=(request.reasoning_effort
                              if caps.supports_reasoning_control(request.model) else None),
            response_format=response_format,
        )
        partial = state.partial = _Partial()
        emitted_any = False
        self._emit(self._events.make(
            ModelCallStarted, model=model_request.model, message_count=len(model_request.messages),
            tools=[t.name for t in tools], tool_choice=_choice_name(model_request.tool_choice),
            stream=model_request.stream, reasoning_effort=model_request.reasoning_effort,
            max_output_tokens=model_request.max_output_tokens))
        sent = time.monotonic()
        first_output: float | None = None
        rejected: ProviderError | None = None
        deadline = self.limits.model_call_timeout
        with capture_wire() as wire:
            try:
                async with asyncio.timeout(deadline) as clock, aclosing(self.adapter.stream(model_request)) as stream:
                    async for event in stream:
                        match event:
                            case TextChunk(text=piece):
                                emitted_any = True
                                first_output = first_output or time.monotonic()
                                self._stream_piece(piece, partial, partial.text, ContentDelta)
                            case ReasoningChunk(text=piece):
                                emitted_any = True
                                first_output = first_output or time.monotonic()
                                self._stream_piece(piece, partial, partial.reasoning, ReasoningDelta)
                            case ToolCallReady(call=call):
                                emitted_any = True
                                first_output = first_output or time.monotonic()
                                if len(self._within_answer_limit(call.arguments, partial)) < len(
                                        call.arguments):
                                    raise self._answer_too_large()
                                self._emit(self._events.make(ToolCalls, calls=[
                                    ToolCallInfo(id=call.id, name=call.name, arguments=call.arguments)]))
                            case ResponseStarted() | UsageReport():
                                pass  # the call's usage comes once more, final, on ResponseComplete
                            case ResponseComplete():
                                state.partial = None
                                self._emit_usage(event, model_request.model, state, sent, first_output)
                                return event
                            case _:
                                assert_never(event)
            except TimeoutError:
                if not clock.expired():
                    raise
                raise ModelCallTimeoutError(
                    f"The model call took longer than {deadline:g} s (limit limits.model_call_timeout); it was "
                    "stopped.", provider=self.adapter.provider_name) from None
            except ProviderError as error:
                if not (tools and not emitted_any and not state.tools_rejected and mentions_tools(error)):
                    raise
                rejected = error
            finally:
                if wire.method is not None:  # the adapter sent an HTTP request (a scripted model does not)
                    self._emit(self._events.make(ModelExchange, **wire.fields()))
        if rejected is not None:
            state.tools_rejected = True
            self._warn("TOOLS_REJECTED", f"{self.adapter.provider_name} rejected the request because of its "
                       f"tools ({rejected.status}); retrying once without tools.")
            return await self._call_model(request, history, offered, choice, state)
        raise MalformedResponseError(f"{self.adapter.provider_name}: the answer ended without completing.",
                                     provider=self.adapter.provider_name)

    def _stream_piece(self, piece: str, partial: _Partial, kept: list[str],
                      kind: type[ContentDelta] | type[ReasoningDelta]) -> None:
        """Emit a text or reasoning piece, cut at ``MAX_ANSWER_CHARS``; past the limit the call stops."""
        text = self._within_answer_limit(piece, partial)
        kept.append(text)
        self._emit(self._events.make(kind, content=text))
        if len(text) < len(piece):
            raise self._answer_too_large()

    @staticmethod
    def _within_answer_limit(text: str, partial: _Partial) -> str:
        """``text``, cut where the answer so far would pass ``MAX_ANSWER_CHARS``; counts what it lets through."""
        room = max(0, MAX_ANSWER_CHARS - partial.chars)
        kept = text[:room]
        partial.chars += len(kept)
        return kept

    def _answer_too_large(self) -> ResponseTooLargeError:
        name = self.adapter.provider_name
        return ResponseTooLargeError(
            f"The answer from {name} passed {MAX_ANSWER_CHARS:,} characters, the limit for one answer; reading "
            "stopped and the answer so far was kept.", provider=name)

    def _cost(self, model: str, usage: TokenUsage) -> float | None:
        return None if self.price is None else self.price(model, usage)

    def _emit_usage(self, response: ResponseComplete, model: str, state: _RunState, sent: float,
                    first_output: float | None) -> None:
        """The call's ``usage`` (when it reported any, with its cost) and then ``model_call_finished``."""
        cost = None
        if response.usage is None:
            state.usage_unknown = True
        else:
            state.add_usage(response.usage)
            u = response.usage
            cost = self._cost(model, u)
            self._emit(self._events.make(Usage, input_tokens=u.input_tokens, output_tokens=u.output_tokens,
                                         reasoning_tokens=u.reasoning_tokens, cached_tokens=u.cached_tokens,
                                         cache_write_tokens=u.cache_write_tokens, cost_usd=cost))
        self._emit_call_finished(response, sent, first_output, cost)

    def _emit_call_finished(self, response: ResponseComplete, sent: float, first_output: float | None,
                            cost: float | None) -> None:
        usage = response.usage
        counts = {} if usage is None else {
            "input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            "reasoning_tokens": usage.reasoning_tokens, "cached_tokens": usage.cached_tokens,
            "cost_usd": cost}
        self._emit(self._events.make(
            ModelCallFinished, finish_reason=response.finish_reason,
            native_finish_reason=response.native_finish_reason,
            first_token_ms=None if first_output is None else int((first_output - sent) * 1000),
            duration_ms=int((time.monotonic() - sent) * 1000), **counts))

    def _within_tool_limit(self, tools: list[ToolSpec], history: list[Message], limit: int | None,
                           state: _RunState) -> list[ToolSpec]:
        if limit is None or len(tools) <= limit:
            return tools
        chosen = select_tools(tools, history, limit)
        if not state.tools_limited_warned:
            state.tools_limited_warned = True
            left_out = [t.name for t in tools if t not in chosen]
            self._warn("TOOLS_LIMITED", f"{self.adapter.provider_name} accepts at most {limit} tools per request; "
                       f"sent the {limit} most relevant and left out {len(left_out)}: {', '.join(left_out)}.")
        return chosen


def _released(choice: ToolChoice, iteration: int) -> ToolChoice:
    """A forced choice (a tool name or ``required``) applies to the first model call only, then ``auto``;
    forcing it again would make the model call tools until the iteration cap and never answer."""
    if iteration > 1 and (choice == "required" or isinstance(choice, NamedToolChoice)):
        return "auto"
    return choice


def _choice_name(choice: ToolChoice) -> str:
    return choice if isinstance(choice, str) else f"tool:{choice.name}"


class _RunState:
    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.finish: FinishReason = "stop"
        self.new_messages: list[Message] = []
        self.usage: TokenUsage | None = None
        self.usage_unknown = False  # a completed model call reported no usage
        self.error: ProviderError | None = None
        self.partial: _Partial | None = None
        self.partial_message: AssistantMessage | None = None
        self.tools_rejected = False
        self.sent_tools: list[str] = []  # the tools in the latest model request
        self.tools_limited_warned = False
        self.format_warned = False

    def add_usage(self, usage: TokenUsage) -> None:
        if self.usage is None:
            self.usage = TokenUsage()
        self.usage = TokenUsage(
            input_tokens=self.usage.input_tokens + usage.input_tokens,
            output_tokens=self.usage.output_tokens + usage.output_tokens,
            reasoning_tokens=self.usage.reasoning_tokens + usage.reasoning_tokens,
            cached_tokens=self.usage.cached_tokens + usage.cached_tokens,
            cache_write_tokens=self.usage.cache_write_tokens + usage.cache_write_tokens,
        )

    def keep_partial(self) -> None:
        """Append what arrived of the interrupted model call, without tool calls that never ran."""
        message = self.partial_message or (self.partial.message() if self.partial else None)
        self.partial = None
        self.partial_message = None
        if message is None:
            return
        kept = [p for p in message.parts if isinstance(p, TextPart | ReasoningPart)]
        if kept:
            self.new_messages.append(message.model_copy(update={"parts": kept}))
