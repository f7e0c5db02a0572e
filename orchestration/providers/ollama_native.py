"""Ollama's native chat API (``POST /api/chat``, newline-delimited JSON).

Each line carries a piece of ``message.content`` and ``message.thinking``; ``tool_calls`` arrive whole and
without ids (ids are assigned); the last line has ``done: true`` with ``done_reason`` and the token counts, and
is the end marker. Models that write ``<think>`` tags into the content have them split out (on by default for
this local preset). Requests carry tools, ``think`` (true/false, or a level for gpt-oss) when reasoning effort
is asked for, ``options`` (num_predict, temperature) and ``format`` for JSON output.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

from orchestration.engine import ModelFinish, ModelRequest, ProviderEvent, TokenUsage
from orchestration.messages import (
    AssistantMessage,
    ImagePart,
    TextPart,
    ToolCallPart,
    UserMessage,
    unmapped,
    user_content,
)
from orchestration.providers import wire_values
from orchestration.providers.base import HTTPChatAdapter, WireReader
from orchestration.providers.chat_messages import ChatDialect, assistant_parts, chat_messages
from orchestration.providers.config import ProviderConfig
from orchestration.providers.framing import FrameDecoder, NDJSONFrames

CHAT_PATH = "api/chat"
WIRE_FORMAT = "Ollama chat"  # named in an UnmappedPartError
LEVELLED_THINK_MODELS = ("gpt-oss",)  # models whose ``think`` takes "low" | "medium" | "high" instead of a bool
USAGE_FIELDS = ("prompt_eval_count", "eval_count", "total_duration", "load_duration", "prompt_eval_duration",
                "eval_duration")

_FINISH: dict[str, ModelFinish] = {"stop": "stop", "length": "length"}


# --- request -------------------------------------------------------------------------------------------

def _arguments_object(call: ToolCallPart) -> dict[str, Any]:
    try:
        value = call.parsed_arguments()
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _user(message: UserMessage) -> dict[str, Any]:
    """Ollama's user message has one text and a list of base64 ``images``: text pieces (documents, then the
    prompt) are joined by blank lines, images go in order to ``images``."""
    texts: list[str] = []
    images: list[str] = []
    for piece in user_content(message):
        match piece:
            case TextPart():
                texts.append(piece.text)
            case ImagePart():
                images.append(piece.base64())
            case _:
                unmapped(piece, WIRE_FORMAT)
    out: dict[str, Any] = {"role": "user", "content": "\n\n".join(texts)}
    if images:
        out["images"] = images
    return out


def _assistant_fields(message: AssistantMessage) -> dict[str, Any]:
    parts = assistant_parts(message, WIRE_FORMAT)
    out: dict[str, Any] = {"content": parts.joined_text}
    if parts.joined_reasoning:
        out["thinking"] = parts.joined_reasoning
    return out


# Ollama's calls carry no id (a result names its tool) and take their arguments as an object
DIALECT = ChatDialect(WIRE_FORMAT, _assistant_fields, user=_user, arguments=_arguments_object, call_ids=False,
                      result_key="tool_name")


def _think_value(request: ModelRequest) -> bool | str:
    effort = request.reasoning_effort
    if effort == "minimal":
        return False
    if request.model.startswith(LEVELLED_THINK_MODELS):
        return str(effort)
    return True


def build_payload(request: ModelRequest, config: ProviderConfig) -> dict[str, Any]:
    caps = config.capabilities.for_model(request.model)
    payload: dict[str, Any] = {"model": request.model, "messages": chat_messages(request.messages, DIALECT),
                               "stream": bool(request.stream and caps.streaming)}
    # Ollama has no tool_choice: "none" is honoured by not sending the tools; a forced choice cannot be.
    if request.tools and caps.tools and request.tool_choice != "none":
        payload["tools"] = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                              "parameters": t.parameters}}
                            for t in request.tools]
    if request.reasoning_effort and caps.supports_reasoning_control(request.model):
        payload["think"] = _think_value(request)
    options: dict[str, Any] = {}
    if request.max_output_tokens is not None:
        options["num_predict"] = request.max_output_tokens
    if request.temperature is not None:
        options["temperature"] = request.temperature
    if options:
        payload["options"] = options
    fmt = request.response_format
    if fmt is not None and caps.response_format:
        schema = (fmt.get("json_schema") or {}).get("schema") if fmt.get("type") == "json_schema" else None
        payload["format"] = schema or "json"
    return payload


# --- response --------------------------------------------------------------------------------------------

class OllamaReader(WireReader):
    end_marker = 'line with "done": true'

    def frame(self, event: str, obj: Any) -> list[ProviderEvent]:
        if not isinstance(obj, dict):
            raise self.malformed(f"expected a JSON object, got {type(obj).__name__}")
        if obj.get("error"):
            raise self.error_frame(obj)
        events = self.acc.meta(None, obj.get("model"))
        message = wire_values.mapping(obj, "message")
        thinking = message.get("thinking")
        if isinstance(thinking, str):
            events += self.acc.reasoning(thinking)
        content = message.get("content")
        if isinstance(content, str):
            events += self.text(content)
        calls = message.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict):
                continue
            arguments = function.get("arguments")
            raw = arguments if isinstance(arguments, str) else json.dumps(arguments or {}, ensure_ascii=False)
            events += self.acc.tool_call(id=call.get("id") or None, name=str(function.get("name") or ""),
                                         arguments=raw)
        if obj.get("done"):
            reason = obj.get("done_reason")
            self.native_finish_reason = reason if isinstance(reason, str) else None
            self.finish_reason = _FINISH.get(reason, "stop") if isinstance(reason, str) else "stop"
            usage = {k: obj[k] for k in USAGE_FIELDS if k in obj}
            if usage:
                events += self.acc.set_usage(TokenUsage(input_tokens=wire_values.count(usage, "prompt_eval_count") or 0,
                                                        output_tokens=wire_values.count(usage, "eval_count") or 0,
                                                        raw=usage))
            self.ended = True
        return events


class OllamaAdapter(HTTPChatAdapter):
    """Ollama's /api/chat over one provider's transport."""

    def framing(self, content_type: str) -> FrameDecoder:
        return NDJSONFrames()  # streamed (x-ndjson) or not (one JSON line), it is one object per line

    async def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        payload = build_payload(request, self.config)
        reader = OllamaReader(self.provider_name, think_tags=self.capabilities.think_tags)
        async with aclosing(self.read(CHAT_PATH, payload, reader)) as events:
            async for event in events:
                yield event
