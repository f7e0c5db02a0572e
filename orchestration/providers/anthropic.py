"""The Anthropic Messages wire format (``POST /v1/messages``), streaming and not.

Reads text, ``thinking`` blocks with their signatures, ``redacted_thinking``, ``tool_use`` blocks whose input
arrives as ``input_json_delta`` pieces (parallel calls, empty input), blocks in any order, usage from
``message_start`` overlaid by ``message_delta``, and ``event: error`` frames; the answer is complete only at
``message_stop``. Requests carry the system prompt, tools, ``tool_choice`` (auto, any, none, a named tool),
``disable_parallel_tool_use`` when parallel calls are off, an extended-thinking budget, and ``cache_control``
marks on the system prompt and the tools. Thinking blocks go back unchanged, before the rest of the turn.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

from orchestration.engine import ModelFinish, ModelRequest, NamedToolChoice, ProviderEvent, TokenUsage
from orchestration.messages import (
    AssistantMessage,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
    unmapped,
    user_content_items,
)
from orchestration.providers import wire_values
from orchestration.providers.base import HTTPChatAdapter, WireReader
from orchestration.providers.config import ProviderConfig
from orchestration.providers.turns import merged_turns
from orchestration.reasoning_effort import ReasoningEffort

WIRE_FORMAT = "Anthropic Messages"  # named in an UnmappedPartError
FORMAT = "anthropic"  # ReasoningPart.provider_format of thinking blocks that may be sent back
DEFAULT_MAX_TOKENS = 8192  # Anthropic requires max_tokens; this is sent when the run sets none
# budget_tokens per effort
THINKING_BUDGETS: dict[ReasoningEffort, int] = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384}
MIN_THINKING_BUDGET = 1024  # the smallest budget Anthropic accepts
CACHE_MARK = {"type": "ephemeral"}

_FINISH: dict[str, ModelFinish] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


# --- request -------------------------------------------------------------------------------------------

def _assistant_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    """Thinking blocks first and unchanged (only signed or redacted ones: Anthropic verifies them), then text
    and tool use in their order. Whitespace-only text is dropped; Anthropic refuses it."""
    thinking: list[dict[str, Any]] = []
    rest: list[dict[str, Any]] = []
    for part in message.parts:
        match part:
            case ReasoningPart():
                if part.provider_format != FORMAT:
                    continue
                if part.encrypted:
                    thinking.append({"type": "redacted_thinking", "data": part.encrypted})
                elif part.signature:
                    thinking.append({"type": "thinking", "thinking": part.text, "signature": part.signature})
            case TextPart():
                if part.text.strip():
                    rest.append({"type": "text", "text": part.text})
            case ToolCallPart():
                rest.append({"type": "tool_use", "id": part.id, "name": part.name, "input": _tool_input(part)})
            case _:
                unmapped(part, WIRE_FORMAT)
    return thinking + rest


def _tool_input(call: ToolCallPart) -> dict[str, Any]:
    try:
        value = call.parsed_arguments()
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def user_blocks(message: UserMessage) -> list[dict[str, Any]]:
    """``text`` blocks and ``image`` blocks with a base64 source, attachments first."""
    return user_content_items(message, text=lambda text: {"type": "text", "text": text},
                              image=lambda image: {"type": "image", "source": {
                                  "type": "base64", "media_type": image.media_type, "data": image.base64()}},
                              wire_format=WIRE_FORMAT)


def _tool_result(message: ToolResultMessage) -> list[dict[str, Any]]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.call_id, "content": message.content}
    if message.status != "ok":
        block["is_error"] = True
    return [block]


def messages_to_wire(messages: list[Message]) -> list[dict[str, Any]]:
    """Anthropic turns: all tool results of a turn in one user message (as ``tool_result`` blocks, before any
    user text that follows), consecutive same-role content merged."""
    return merged_turns(messages, wire_format=WIRE_FORMAT, items_key="content", assistant_role="assistant",
                        user=user_blocks, assistant=_assistant_blocks, tool_result=_tool_result)


def _tool_choice(request: ModelRequest) -> dict[str, Any]:
    choice = request.tool_choice
    if isinstance(choice, NamedToolChoice):
        return {"type": "tool", "name": choice.name}
    return {"type": {"auto": "auto", "required": "any", "none": "none"}[choice]}


def build_payload(request: ModelRequest, config: ProviderConfig) -> dict[str, Any]:
    caps = config.capabilities.for_model(request.model)
    max_tokens = request.max_output_tokens or DEFAULT_MAX_TOKENS
    payload: dict[str, Any] = {"model": request.model, "max_tokens": max_tokens,
                               "messages": messages_to_wire(request.messages)}
    system = "\n\n".join(m.content for m in request.messages if isinstance(m, SystemMessage))
    if system:
        block: dict[str, Any] = {"type": "text", "text": system}
        if caps.prompt_caching:
            block["cache_control"] = CACHE_MARK
        payload["system"] = [block]
    tools = request.tools if caps.tools else []
    forced = False
    if tools:
        wire_tools: list[dict[str, Any]] = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools]
        if caps.prompt_caching:
            wire_tools[-1]["cache_control"] = CACHE_MARK  # one mark caches every tool definition
        payload["tools"] = wire_tools
        choice = _tool_choice(request)
        forced = choice["type"] in ("any", "tool")
        if request.parallel_tool_calls is False and caps.parallel_tool_calls and choice["type"] != "none":
            choice["disable_parallel_tool_use"] = True
        payload["tool_choice"] = choice
    # Extended thinking: not with a forced tool choice (Anthropic refuses the pair), and only with room left.
    if request.reasoning_effort and caps.supports_reasoning_control(request.model) and not forced:
        budget = THINKING_BUDGETS[request.reasoning_effort]
        if request.max_output_tokens is None:
            payload["max_tokens"] = max_tokens + budget
        else:
            budget = min(budget, max_tokens - 1)
        if budget >= MIN_THINKING_BUDGET:
            payload["thinking"] = {"type": "enabled", "budget_tokens": budget}
        else:
            payload["max_tokens"] = max_tokens
    if request.temperature is not None and "thinking" not in payload:  # thinking allows only the default
        payload["temperature"] = request.temperature
    if request.stream and caps.streaming:
        payload["stream"] = True
    return payload


# --- response --------------------------------------------------------------------------------------------

def usage_from_anthropic(raw: dict[str, Any]) -> TokenUsage:
    """Anthropic counts cached input apart from ``input_tokens``; ``input_tokens`` here is all of the input."""
    cache_read = wire_values.count(raw, "cache_read_input_tokens") or 0
    cache_write = wire_values.count(raw, "cache_creation_input_tokens") or 0
    return TokenUsage(input_tokens=(wire_values.count(raw, "input_tokens") or 0) + cache_read + cache_write,
                      output_tokens=wire_values.count(raw, "output_tokens") or 0, cached_tokens=cache_read,
                      cache_write_tokens=cache_write, raw=raw)


class AnthropicReader(WireReader):
    end_marker = "message_stop event"

    def __init__(self, provider_name: str, *, think_tags: bool = False) -> None:
        super().__init__(provider_name, think_tags=think_tags)
        self._block_types: dict[int, str] = {}
        self._usage: dict[str, Any] = {}

    def frame(self, event: str, obj: Any) -> list[ProviderEvent]:
        if not isinstance(obj, dict):
            raise self.malformed(f"expected a JSON object, got {type(obj).__name__}")
        kind = obj.get("type") or event
        if kind == "error" or event == "error":
            raise self.error_frame(obj)
        if kind == "message_start":
            message = wire_values.mapping(obj, "message")
            events = self.acc.meta(message.get("id"), message.get("model"))
            return events + self._overlay_usage(message.get("usage"))
        if kind == "content_block_start":
            return self._block_start(obj.get("index"), obj.get("content_block"))
        if kind == "content_block_delta":
            return self._block_delta(obj.get("index"), obj.get("delta"))
        if kind == "content_block_stop":
            index = obj.get("index")
            if isinstance(index, int) and self._block_types.get(index) == "tool_use":
                return self.acc.complete_call(index=index)
            return []
        if kind == "message_delta":
            delta = wire_values.mapping(obj, "delta")
            self._stop_reason(delta.get("stop_reason"))
            return self._overlay_usage(obj.get("usage"))
        if kind == "message_stop":
            self.ended = True
        return []  # ping and unknown events

    def _block_start(self, index: Any, block: Any) -> list[ProviderEvent]:
        if not isinstance(index, int) or not isinstance(block, dict):
            raise self.malformed("a content_block_start without index or block")
        kind = block.get("type")
        self._block_types[index] = str(kind)
        if kind == "text":
            return self.text(block.get("text") or "")
        if kind == "thinking":
            self.acc.start_reasoning(provider_format=FORMAT)
            if block.get("signature"):
                self.acc.sign_reasoning(block["signature"])
            return self.acc.reasoning(block.get("thinking") or "")
        if kind == "redacted_thinking":
            self.acc.start_reasoning(provider_format=FORMAT, encrypted=block.get("data") or "")
            return []
        if kind == "tool_use":
            initial = block.get("input")
            arguments = _json_text(initial) if initial else None  # streamed input starts as {} and comes in deltas
            return self.acc.tool_call_delta(index=index, id=block.get("id"), name=block.get("name"),
                                            arguments=arguments)
        return []

    def _block_delta(self, index: Any, delta: Any) -> list[ProviderEvent]:
        if not isinstance(delta, dict):
            return []
        kind = delta.get("type")
        if kind == "text_delta":
            return self.text(delta.get("text") or "")
        if kind == "thinking_delta":
            return self.acc.reasoning(delta.get("thinking") or "")
        if kind == "signature_delta":
            self.acc.sign_reasoning(delta.get("signature") or "")
            return []
        if kind == "input_json_delta" and isinstance(index, int):
            return self.acc.tool_call_delta(index=index, arguments=delta.get("partial_json") or "")
        return []

    def _overlay_usage(self, usage: Any) -> list[ProviderEvent]:
        if not isinstance(usage, dict):
            return []
        self._usage.update({k: v for k, v in usage.items() if v is not None})
        return self.acc.set_usage(usage_from_anthropic(dict(self._usage)))

    def _stop_reason(self, reason: Any) -> None:
        if isinstance(reason, str):
            self.native_finish_reason = reason
            self.finish_reason = _FINISH.get(reason, "unknown")

    def whole(self, obj: Any) -> list[ProviderEvent]:
        """A non-streamed message: the same blocks, each complete."""
        if not isinstance(obj, dict):
            raise self.malformed("the answer is not a JSON object")
        if obj.get("type") == "error":
            raise self.error_frame(obj)
        events = self.acc.meta(obj.get("id"), obj.get("model"))
        blocks = wire_values.items(obj, "content")
        for index, block in enumerate(blocks):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                events += self.acc.tool_call(id=block.get("id"), name=str(block.get("name") or ""),
                                             arguments=_json_text(block.get("input") or {}))
            else:
                events += self._block_start(index, block)
        self._stop_reason(obj.get("stop_reason"))
        events += self._overlay_usage(obj.get("usage"))
        self.ended = True
        return events


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class AnthropicAdapter(HTTPChatAdapter):
    """Messages API over one provider's transport."""

    async def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        payload = build_payload(request, self.config)
        reader = AnthropicReader(self.provider_name, think_tags=self.capabilities.think_tags)
        async with aclosing(self.read("messages", payload, reader)) as events:
            async for event in events:
                yield event
