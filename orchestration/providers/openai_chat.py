"""The OpenAI Chat Completions wire format, for OpenAI and every OpenAI-compatible server.

Reads text, reasoning in each dialect (``reasoning_content``; ``reasoning``; OpenRouter's
``reasoning_details``; Mistral's ``thinking`` content arrays), tool-call deltas, usage, finish reasons and
mid-stream error frames, and turns them into provider events through the shared accumulator. Local servers
that leave ``<think>`` tags in the text (``Capabilities.think_tags``) have them split out as reasoning.
The read loop, framing, end check and error wording are ``providers/base.py``'s, as for every other format;
anything that goes wrong mid-answer is raised as a ``ProviderError`` carrying the partial message.
"""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

from orchestration.engine import (
    ModelFinish,
    ModelRequest,
    NamedToolChoice,
    ProviderEvent,
    ResponseComplete,
    TokenUsage,
)
from orchestration.errors import empty_response
from orchestration.messages import AssistantMessage, ReasoningPart, TextPart
from orchestration.providers import wire_values
from orchestration.providers.base import HTTPChatAdapter, WireReader
from orchestration.providers.chat_messages import ChatDialect, assistant_parts, chat_messages
from orchestration.providers.config import Capabilities, ProviderConfig
from orchestration.providers.framing import FrameDecoder, WholeBody

WIRE_FORMAT = "OpenAI Chat Completions"  # named in an UnmappedPartError
_FINISH: dict[str, ModelFinish] = {
    "stop": "stop",
    "end_turn": "stop",
    "length": "length",
    "max_tokens": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "tool_use": "tool_calls",
    "content_filter": "content_filter",
    "error": "error",
}


def map_finish(reason: str | None) -> ModelFinish:
    if reason is None:
        return "unknown"
    return _FINISH.get(reason, "unknown")


def usage_from_openai(raw: dict[str, Any]) -> TokenUsage:
    prompt_details = wire_values.mapping(raw, "prompt_tokens_details")
    completion_details = wire_values.mapping(raw, "completion_tokens_details")
    return TokenUsage(
        input_tokens=wire_values.count(raw, "prompt_tokens") or 0,
        output_tokens=wire_values.count(raw, "completion_tokens") or 0,
        reasoning_tokens=wire_values.count(completion_details, "reasoning_tokens") or 0,
        cached_tokens=(wire_values.count(prompt_details, "cached_tokens")
                       or wire_values.count(raw, "prompt_cache_hit_tokens") or 0),
        raw=raw,
    )


def _detail_text(record: dict[str, Any]) -> str:
    """The readable text of an OpenRouter reasoning-detail record ("" for encrypted ones)."""
    kind = record.get("type")
    value = record.get("text") if kind == "reasoning.text" else (
        record.get("summary") if kind == "reasoning.summary" else None)
    return value if isinstance(value, str) else ""


# --- request -------------------------------------------------------------------------------------------

def _assistant_fields(message: AssistantMessage, caps: Capabilities) -> dict[str, Any]:
    parts = assistant_parts(message, WIRE_FORMAT)
    # content may be null only beside tool calls, and some servers refuse even that (null_assistant_content)
    null = bool(parts.calls) and caps.null_assistant_content
    out: dict[str, Any] = {"content": parts.joined_text or (None if null else "")}
    details = [d for p in parts.reasoning for d in p.details]
    if details:
        out["reasoning_details"] = details
    if caps.echo_reasoning_content and parts.joined_reasoning:
        out["reasoning_content"] = parts.joined_reasoning
    return out


def dialect(config: ProviderConfig) -> ChatDialect:
    return ChatDialect(WIRE_FORMAT, functools.partial(_assistant_fields, caps=config.capabilities))


def build_payload(request: ModelRequest, config: ProviderConfig) -> dict[str, Any]:
    caps = config.capabilities
    payload: dict[str, Any] = {"model": request.model, "messages": chat_messages(request.messages, dialect(config))}
    if request.tools and caps.tools:
        payload["tools"] = [
            {"type": "function",
             "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in request.tools
        ]
        choice = request.tool_choice
        if choice == "required" and not caps.required_tool_choice and len(request.tools) == 1:
            choice = NamedToolChoice(name=request.tools[0].name)  # the same demand, in a form the server obeys
        payload["tool_choice"] = (
            {"type": "function", "function": {"name": choice.name}} if isinstance(choice, NamedToolChoice)
            else choice
        )
        if request.parallel_tool_calls is not None and caps.parallel_tool_calls:
            payload["parallel_tool_calls"] = request.parallel_tool_calls
    if request.stream:
        payload["stream"] = True
        if caps.stream_usage:
            payload["stream_options"] = {"include_usage": True}
    if request.max_output_tokens is not None:
        payload[caps.max_tokens_field] = request.max_output_tokens
    if request.temperature is not None:
        payload["temperature"] = request.temperature
    if request.response_format is not None and caps.response_format:
        payload["response_format"] = request.response_format
    if request.reasoning_effort and caps.supports_reasoning_control(request.model):
        if caps.reasoning_control == "openrouter":
            payload["reasoning"] = {"effort": request.reasoning_effort}
        else:
            payload["reasoning_effort"] = request.reasoning_effort
    return payload


# --- response --------------------------------------------------------------------------------------------

class ChatChunkReader(WireReader):
    """Feeds OpenAI-style chunks (streamed deltas or one whole message) into the shared accumulator. The answer
    is complete at a ``[DONE]`` line or a finish reason (some servers send one without the other)."""

    end_marker = "[DONE] line or finish reason"

    def __init__(self, provider_name: str, *, think_tags: bool = False) -> None:
        super().__init__(provider_name, think_tags=think_tags)
        self.wire_finish: str | None = None  # the finish reason as sent
        self.wire_native_finish: str | None = None  # OpenRouter's upstream finish reason

    def frame(self, event: str, obj: Any) -> list[ProviderEvent]:
        if event == "error":
            raise self.error_frame(obj)
        if not isinstance(obj, dict):
            raise self.malformed(f"expected a JSON object, got {type(obj).__name__}")
        if obj.get("error"):
            raise self.error_frame(obj)
        events = self.acc.meta(obj.get("id"), obj.get("model"))
        usage = obj.get("usage")
        if not isinstance(usage, dict) or not usage:
            extra = obj.get("x_groq")  # Groq without stream_options reports usage only here
            usage = extra.get("usage") if isinstance(extra, dict) else None
        if isinstance(usage, dict) and usage:
            events += self.acc.set_usage(usage_from_openai(usage))
        choices = obj.get("choices") or []
        for choice in choices if isinstance(choices, list) else []:
            if not isinstance(choice, dict) or (choice.get("index") or 0) != 0:
                continue  # only the first choice is read (n > 1 is never requested)
            delta = choice.get("delta")
            if delta is None:
                delta = choice.get("message")
            events += self._delta(delta if isinstance(delta, dict) else {})
            if wire_values.text(choice, "finish_reason"):
                self.wire_finish = wire_values.text(choice, "finish_reason")
                self.ended = True
            if wire_values.text(choice, "native_finish_reason"):
                self.wire_native_finish = wire_values.text(choice, "native_finish_reason")
        return events

    def whole(self, obj: Any) -> list[ProviderEvent]:
        """A whole answer (not streamed, or a server that ignored ``"stream": true``): complete as it is."""
        events = self.frame("message", obj)
        self.ended = True
        return events

    def done_line(self) -> list[ProviderEvent]:
        self.ended = True
        return []

    def _delta(self, delta: dict[str, Any]) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        acc = self.acc
        reasoning_text = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning_text, str) and reasoning_text:
            events += acc.reasoning(reasoning_text)
        details = delta.get("reasoning_details")
        if isinstance(details, list):
            for record in details:
                if not isinstance(record, dict):
                    continue
                acc.reasoning_record(record)
                if not reasoning_text:  # the same text usually also arrives as "reasoning"; never twice
                    events += acc.reasoning(_detail_text(record))
        content = delta.get("content")
        if isinstance(content, str):
            events += self.text(content)
        elif isinstance(content, list):
            for item in content:
                events += self._content_item(item)
        if isinstance(delta.get("refusal"), str) and delta["refusal"]:
            events += self.text(delta["refusal"])
        calls = delta.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            if not isinstance(call, dict):
                continue
            fn = wire_values.mapping(call, "function")
            args = fn.get("arguments")
            if args is not None and not isinstance(args, str):
                args = json.dumps(args)  # a few servers send the arguments as an object
            index = call.get("index")
            events += acc.tool_call_delta(index=index if isinstance(index, int) else None, id=call.get("id"),
                                          name=fn.get("name"), arguments=args)
        return events

    def _content_item(self, item: Any) -> list[ProviderEvent]:
        if isinstance(item, str):
            return self.text(item)
        if not isinstance(item, dict):
            return []
        kind = item.get("type")
        if kind == "text":
            return self.text(item.get("text") or "")
        if kind == "thinking":
            events: list[ProviderEvent] = []
            thinking = item.get("thinking")
            pieces = thinking if isinstance(thinking, list) else [thinking]
            for piece in pieces:
                if isinstance(piece, dict):
                    events += self.acc.reasoning(piece.get("text") or "")
                elif isinstance(piece, str):
                    events += self.acc.reasoning(piece)
            return events
        return []

    def finish(self) -> list[ProviderEvent]:
        self.finish_reason = map_finish(self.wire_finish)
        self.native_finish_reason = self.wire_native_finish or self.wire_finish
        events = super().finish()
        complete = events[-1]
        if (isinstance(complete, ResponseComplete) and complete.finish_reason in ("stop", "unknown")
                and not any(p.text if isinstance(p, TextPart | ReasoningPart) else True
                            for p in complete.message.parts)):
            # chunks came, but not one word, thought or call in them: as empty as an empty body
            raise empty_response(self.provider_name, f"{self.frames} chunk(s) without text, reasoning or a tool "
                                                     "call")
        return events


class OpenAIChatAdapter(HTTPChatAdapter):
    """Chat Completions over one provider's transport; the read loop, framing and end check are the base's."""

    async def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        payload = build_payload(request, self.config)
        reader = ChatChunkReader(self.provider_name, think_tags=self.capabilities.think_tags)
        framing = None
        if not request.stream or not self.capabilities.streaming:
            payload.pop("stream", None)
            payload.pop("stream_options", None)
            framing = _whole_body  # one JSON answer, whatever content type the server gives it
        async with aclosing(self.read("chat/completions", payload, reader, framing=framing)) as events:
            async for event in events:
                yield event


def _whole_body(content_type: str) -> FrameDecoder:
    return WholeBody()
