"""The Cohere v2 chat wire format (``POST /v2/chat``), streaming and not.

Reads ``content-delta`` text and thinking, the ``tool-plan-delta`` pieces (Cohere's plan before it calls
tools, shown as reasoning and sent back as ``tool_plan``), and ``tool-call-start``/``-delta``/``-end``; the
answer is complete at ``message-end``, whose ``ERROR``/``TIMEOUT`` finish reasons are errors. Quirk: a
parameterless tool's arguments may arrive as ``"null"``, which means no arguments (``{}``). Cohere has no
"named tool" choice: a named choice sends only that tool with ``tool_choice: REQUIRED``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

from orchestration.engine import ModelFinish, ModelRequest, NamedToolChoice, ProviderEvent, TokenUsage
from orchestration.errors import StreamError
from orchestration.messages import AssistantMessage, ReasoningPart, TextPart, ToolCallPart, unmapped
from orchestration.providers import wire_values
from orchestration.providers.base import HTTPChatAdapter, WireReader
from orchestration.providers.chat_messages import ChatDialect, chat_messages
from orchestration.providers.config import ProviderConfig
from orchestration.reasoning_effort import ReasoningEffort

CHAT_PATH = "v2/chat"
WIRE_FORMAT = "Cohere v2 chat"  # named in an UnmappedPartError
THINKING = "cohere"  # ReasoningPart.provider_format of thinking content
TOOL_PLAN = "cohere-tool-plan"  # ReasoningPart.provider_format of a tool plan
# token_budget per effort; minimal turns it off
THINKING_BUDGETS: dict[ReasoningEffort, int] = {"low": 1024, "medium": 4096, "high": 16384}

_FINISH: dict[str, ModelFinish] = {"COMPLETE": "stop", "STOP_SEQUENCE": "stop", "MAX_TOKENS": "length",
                                   "TOOL_CALL": "tool_calls"}
_FAILED = ("ERROR", "TIMEOUT")


def null_means_no_arguments(raw: str) -> str:
    return "{}" if raw.strip() == "null" else raw


# --- request -------------------------------------------------------------------------------------------

def _assistant_fields(message: AssistantMessage) -> dict[str, Any]:
    """The tool plan, and content items (thinking and text, in order) unless the turn is only tool calls."""
    out: dict[str, Any] = {}
    plan = ""
    content: list[dict[str, Any]] = []
    for part in message.parts:
        match part:
            case ReasoningPart() if part.provider_format == TOOL_PLAN:
                plan += part.text
            case ReasoningPart():
                if part.provider_format == THINKING and part.text:
                    content.append({"type": "thinking", "thinking": part.text})
            case TextPart():
                if part.text:
                    content.append({"type": "text", "text": part.text})
            case ToolCallPart():
                pass  # the shared mapper writes the calls
            case _:
                unmapped(part, WIRE_FORMAT)
    if plan:
        out["tool_plan"] = plan
    if content or not message.tool_calls:
        out["content"] = content or ""
    return out


def _arguments(call: ToolCallPart) -> str:
    return null_means_no_arguments(call.arguments) or "{}"


DIALECT = ChatDialect(WIRE_FORMAT, _assistant_fields, arguments=_arguments)


def build_payload(request: ModelRequest, config: ProviderConfig) -> dict[str, Any]:
    caps = config.capabilities.for_model(request.model)
    payload: dict[str, Any] = {"model": request.model, "messages": chat_messages(request.messages, DIALECT)}
    tools = request.tools if caps.tools else []
    choice = request.tool_choice
    if isinstance(choice, NamedToolChoice):
        tools = [t for t in tools if t.name == choice.name]
    if tools:
        payload["tools"] = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                              "parameters": t.parameters}} for t in tools]
        if choice != "auto":
            payload["tool_choice"] = "NONE" if choice == "none" else "REQUIRED"
    if request.max_output_tokens is not None:
        payload["max_tokens"] = request.max_output_tokens
    if request.temperature is not None:
        payload["temperature"] = request.temperature
    effort = request.reasoning_effort
    if effort and caps.supports_reasoning_control(request.model):
        payload["thinking"] = ({"type": "disabled"} if effort == "minimal"
                               else {"type": "enabled", "token_budget": THINKING_BUDGETS[effort]})
    fmt = request.response_format
    if fmt is not None and caps.response_format:
        schema = (fmt.get("json_schema") or {}).get("schema") if fmt.get("type") == "json_schema" else None
        payload["response_format"] = {"type": "json_object", **({"json_schema": schema} if schema else {})}
    if request.stream and caps.streaming:
        payload["stream"] = True
    return payload


# --- response --------------------------------------------------------------------------------------------

def usage_from_cohere(raw: dict[str, Any]) -> TokenUsage:
    tokens = wire_values.mapping(raw, "tokens") or wire_values.mapping(raw, "billed_units")
    return TokenUsage(input_tokens=wire_values.count(tokens, "input_tokens") or 0,
                      output_tokens=wire_values.count(tokens, "output_tokens") or 0,
                      cached_tokens=wire_values.count(raw, "cached_tokens") or 0, raw=raw)


def _message(obj: dict[str, Any]) -> dict[str, Any]:
    delta = wire_values.mapping(obj, "delta")
    message = delta.get("message")
    return message if isinstance(message, dict) else {}


class CohereReader(WireReader):
    end_marker = "message-end event"

    def __init__(self, provider_name: str, *, think_tags: bool = False) -> None:
        super().__init__(provider_name, think_tags=think_tags)
        self._in_plan = False

    def frame(self, event: str, obj: Any) -> list[ProviderEvent]:
        if not isinstance(obj, dict):
            raise self.malformed(f"expected a JSON object, got {type(obj).__name__}")
        kind = obj.get("type") or event
        if kind == "error" or event == "error":
            raise self.error_frame(obj)
        index = obj.get("index") if isinstance(obj.get("index"), int) else None
        message = _message(obj)
        if kind == "message-start":
            return self.acc.meta(obj.get("id"), None)
        if kind == "content-start":
            content = wire_values.mapping(message, "content")
            if content.get("type") == "thinking":
                self.acc.start_reasoning(provider_format=THINKING)
                return self.acc.reasoning(content.get("thinking") or "")
            return self.text(content.get("text") or "")
        if kind == "content-delta":
            content = wire_values.mapping(message, "content")
            if isinstance(content.get("thinking"), str):
                return self.acc.reasoning(content["thinking"])
            return self.text(content.get("text") or "")
        if kind == "tool-plan-delta":
            if not self._in_plan:
                self._in_plan = True
                self.acc.start_reasoning(provider_format=TOOL_PLAN)
            return self.acc.reasoning(message.get("tool_plan") or "")
        if kind in ("tool-call-start", "tool-call-delta"):
            call = wire_values.mapping(message, "tool_calls")
            function = wire_values.mapping(call, "function")
            return self.acc.tool_call_delta(index=index, id=call.get("id"), name=function.get("name"),
                                            arguments=function.get("arguments") or None)
        if kind == "tool-call-end":
            return self.acc.complete_call(index=index, fix_arguments=null_means_no_arguments)
        if kind == "message-end":
            delta = wire_values.mapping(obj, "delta")
            return self._end(delta.get("finish_reason"), delta.get("usage"))
        return []  # citations and unknown events

    def _end(self, reason: Any, usage: Any) -> list[ProviderEvent]:
        events = self.acc.set_usage(usage_from_cohere(usage)) if isinstance(usage, dict) and usage else []
        if isinstance(reason, str) and reason in _FAILED:
            raise self.with_partial(StreamError(
                f"{self.provider_name} stopped the answer with {reason}. Try again; if it keeps happening, try "
                "a shorter conversation or another model.", provider=self.provider_name, provider_code=reason))
        self.native_finish_reason = reason if isinstance(reason, str) else None
        self.finish_reason = _FINISH.get(reason, "unknown") if isinstance(reason, str) else "unknown"
        self.ended = True
        return events

    def whole(self, obj: Any) -> list[ProviderEvent]:
        """A non-streamed answer."""
        if not isinstance(obj, dict):
            raise self.malformed("the answer is not a JSON object")
        events = self.acc.meta(obj.get("id"), None)
        message = wire_values.mapping(obj, "message")
        if message.get("tool_plan"):
            self.acc.start_reasoning(provider_format=TOOL_PLAN)
            events += self.acc.reasoning(str(message["tool_plan"]))
        for content in message.get("content") or []:
            if isinstance(content, dict) and content.get("type") == "thinking":
                self.acc.start_reasoning(provider_format=THINKING)
                events += self.acc.reasoning(content.get("thinking") or "")
            elif isinstance(content, dict):
                events += self.text(content.get("text") or "")
        for call in message.get("tool_calls") or []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict):
                events += self.acc.tool_call(id=call.get("id"), name=str(function.get("name") or ""),
                                             arguments=null_means_no_arguments(function.get("arguments") or ""))
        return events + self._end(obj.get("finish_reason"), obj.get("usage"))


class CohereAdapter(HTTPChatAdapter):
    """Cohere's v2 chat API over one provider's transport."""

    async def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        payload = build_payload(request, self.config)
        reader = CohereReader(self.provider_name, think_tags=self.capabilities.think_tags)
        async with aclosing(self.read(CHAT_PATH, payload, reader)) as events:
            async for event in events:
                yield event
