"""The Google Gemini wire format (``models/{model}:streamGenerateContent`` and ``:generateContent``).

Streams come as SSE (``alt=sse``, CRLF line ends) or, from servers that ignore ``alt``, as one JSON array
streamed element by element; both are read. Each chunk may hold text parts, ``thought: true`` parts (the
reasoning pane), and whole ``functionCall`` parts, several per chunk, with or without ids (ids are assigned
when absent and never sent back as Gemini's own). ``thoughtSignature`` values are kept on the part they came
with and sent back there. The answer is complete when a candidate carries a ``finishReason``; a JSON error
served with an SSE content type is reported as the error it is.
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
from orchestration.providers.framing import FrameDecoder, JSONArrayFrames, SSEFrames, WholeBody
from orchestration.providers.turns import merged_turns
from orchestration.reasoning_effort import ReasoningEffort

WIRE_FORMAT = "Gemini generateContent"  # named in an UnmappedPartError
DATA_KEY = "gemini"  # AssistantMessage.provider_data key for signatures that came on text parts
SIGNATURE = "thought_signature"  # ToolCallPart.opaque key of a function call's thought signature
SIGNATURE_WIRE = "thoughtSignature"  # the wire name of a part's signature
GEMINI_ID = "gemini_id"  # ToolCallPart.opaque key of the id Gemini gave a call (absent when we assigned one)
# Gemini 2.5 thinkingBudget
THINKING_BUDGETS: dict[ReasoningEffort, int] = {"minimal": 512, "low": 1024, "medium": 8192, "high": 24576}
# Gemini 3 thinkingLevel
THINKING_LEVELS: dict[ReasoningEffort, str] = {"minimal": "low", "low": "low", "medium": "high", "high": "high"}

_FINISH: dict[str, ModelFinish] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "MALFORMED_FUNCTION_CALL": "error",
}

# The JSON-schema keywords Gemini's function ``parameters`` (an OpenAPI schema subset) accepts.
_SCHEMA_KEYS = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties",
    "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf",
    "propertyOrdering", "default", "items", "minimum", "maximum",
})


def model_path(model: str, *, stream: bool) -> str:
    name = model.removeprefix("models/")
    return f"models/{name}:streamGenerateContent?alt=sse" if stream else f"models/{name}:generateContent"


# --- request -------------------------------------------------------------------------------------------

def gemini_schema(schema: Any, defs: dict[str, Any] | None = None) -> Any:
    """A JSON schema reduced to what Gemini accepts: ``$ref`` inlined from ``$defs``, ``["x", "null"]`` types
    made ``nullable``, unknown keywords (``additionalProperties``, ``$schema``, ...) dropped."""
    if isinstance(schema, list):
        return [gemini_schema(item, defs) for item in schema]
    if not isinstance(schema, dict):
        return schema
    defs = {**(defs or {}), **(schema.get("$defs") or {})}
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
        return gemini_schema({**defs[ref[8:]], **{k: v for k, v in schema.items() if k != "$ref"}}, defs)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in _SCHEMA_KEYS:
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: gemini_schema(sub, defs) for name, sub in value.items()}
        elif key == "type" and isinstance(value, list):
            kinds = [k for k in value if k != "null"]
            out[key] = kinds[0] if kinds else "string"
            if "null" in value:
                out["nullable"] = True
        elif key in ("items", "anyOf"):
            out[key] = gemini_schema(value, defs)
        else:
            out[key] = value
    return out


def _call_part(call: ToolCallPart) -> dict[str, Any]:
    try:
        args = call.parsed_arguments()
    except ValueError:
        args = {}
    function: dict[str, Any] = {"name": call.name, "args": args if isinstance(args, dict) else {}}
    if call.opaque.get(GEMINI_ID):
        function["id"] = call.opaque[GEMINI_ID]
    part: dict[str, Any] = {"functionCall": function}
    if call.opaque.get(SIGNATURE):
        part[SIGNATURE_WIRE] = call.opaque[SIGNATURE]
    return part



def _model_parts(message: AssistantMessage) -> list[dict[str, Any]]:
    """Text and function calls in order (thoughts are not sent back); a signature that came on text goes back
    on the first text part."""
    text_signature = (message.provider_data.get(DATA_KEY) or {}).get("text_signature")
    parts: list[dict[str, Any]] = []
    for part in message.parts:
        match part:
            case TextPart():
                if part.text:
                    wire: dict[str, Any] = {"text": part.text}
                    if text_signature:
                        wire[SIGNATURE_WIRE], text_signature = text_signature, None
                    parts.append(wire)
            case ReasoningPart():
                pass  # thoughts are not sent back
            case ToolCallPart():
                parts.append(_call_part(part))
            case _:
                unmapped(part, WIRE_FORMAT)
    return parts


def user_parts(message: UserMessage) -> list[dict[str, Any]]:
    """``text`` parts and ``inlineData`` parts (mime type and base64 data), attachments first."""
    return user_content_items(message, text=lambda text: {"text": text},
                              image=lambda image: {"inlineData": {"mimeType": image.media_type,
                                                                  "data": image.base64()}},
                              wire_format=WIRE_FORMAT)


def contents_to_wire(messages: list[Message]) -> list[dict[str, Any]]:
    """Gemini turns: ``user`` and ``model``; tool results are ``functionResponse`` parts of one user turn."""
    calls = {c.id: c for m in messages if isinstance(m, AssistantMessage) for c in m.tool_calls}

    def tool_result(message: ToolResultMessage) -> list[dict[str, Any]]:
        key = "result" if message.status == "ok" else "error"
        response: dict[str, Any] = {"name": message.name, "response": {key: message.content}}
        call = calls.get(message.call_id)
        if call is not None and call.opaque.get(GEMINI_ID):
            response["id"] = call.opaque[GEMINI_ID]
        return [{"functionResponse": response}]

    return merged_turns(messages, wire_format=WIRE_FORMAT, items_key="parts", assistant_role="model",
                        user=user_parts, assistant=_model_parts, tool_result=tool_result)


def _tool_config(choice: Any) -> dict[str, Any]:
    if isinstance(choice, NamedToolChoice):
        return {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [choice.name]}}
    return {"functionCallingConfig": {"mode": {"auto": "AUTO", "required": "ANY", "none": "NONE"}[choice]}}


def build_payload(request: ModelRequest, config: ProviderConfig) -> dict[str, Any]:
    caps = config.capabilities.for_model(request.model)
    payload: dict[str, Any] = {"contents": contents_to_wire(request.messages)}
    system = "\n\n".join(m.content for m in request.messages if isinstance(m, SystemMessage))
    if system:
        payload["systemInstruction"] = {"parts": [{"text": system}]}
    if request.tools and caps.tools:
        payload["tools"] = [{"functionDeclarations": [
            {"name": t.name, "description": t.description, "parameters": gemini_schema(t.parameters)}
            for t in request.tools]}]
        payload["toolConfig"] = _tool_config(request.tool_choice)
    generation: dict[str, Any] = {}
    if request.max_output_tokens is not None:
        generation["maxOutputTokens"] = request.max_output_tokens
    if request.temperature is not None:
        generation["temperature"] = request.temperature
    if caps.supports_reasoning_control(request.model):
        thinking: dict[str, Any] = {"includeThoughts": True}
        if request.reasoning_effort and request.model.removeprefix("models/").startswith("gemini-3"):
            thinking["thinkingLevel"] = THINKING_LEVELS[request.reasoning_effort]
        elif request.reasoning_effort:
            thinking["thinkingBudget"] = THINKING_BUDGETS[request.reasoning_effort]
        generation["thinkingConfig"] = thinking
    fmt = request.response_format
    if fmt is not None and caps.response_format:
        generation["responseMimeType"] = "application/json"
        schema = (fmt.get("json_schema") or {}).get("schema") if fmt.get("type") == "json_schema" else None
        if schema:
            generation["responseSchema"] = gemini_schema(schema)
    if generation:
        payload["generationConfig"] = generation
    return payload


# --- response --------------------------------------------------------------------------------------------

def usage_from_gemini(raw: dict[str, Any]) -> TokenUsage:
    thoughts = wire_values.count(raw, "thoughtsTokenCount") or 0
    return TokenUsage(input_tokens=wire_values.count(raw, "promptTokenCount") or 0,
                      output_tokens=(wire_values.count(raw, "candidatesTokenCount") or 0) + thoughts,
                      reasoning_tokens=thoughts, cached_tokens=wire_values.count(raw, "cachedContentTokenCount") or 0,
                      raw=raw)


class GeminiReader(WireReader):
    end_marker = "finishReason"

    def frame(self, event: str, obj: Any) -> list[ProviderEvent]:
        if not isinstance(obj, dict):
            raise self.malformed(f"expected a JSON object, got {type(obj).__name__}")
        if obj.get("error"):
            raise self.error_frame(obj)
        events = self.acc.meta(obj.get("responseId"), obj.get("modelVersion"))
        candidates = obj.get("candidates")
        candidate = candidates[0] if isinstance(candidates, list) and candidates else None
        if isinstance(candidate, dict):
            content = wire_values.mapping(candidate, "content")
            parts = wire_values.items(content, "parts")
            for part in parts:
                if isinstance(part, dict):
                    events += self._part(part)
            if isinstance(candidate.get("finishReason"), str):
                self._finish(candidate["finishReason"])
        feedback = obj.get("promptFeedback")
        if candidate is None and isinstance(feedback, dict) and feedback.get("blockReason"):
            self.finish_reason, self.native_finish_reason = "content_filter", str(feedback["blockReason"])
            self.ended = True
        usage = obj.get("usageMetadata")
        if isinstance(usage, dict) and usage:
            events += self.acc.set_usage(usage_from_gemini(usage))
        return events

    def _part(self, part: dict[str, Any]) -> list[ProviderEvent]:
        signature = part.get(SIGNATURE_WIRE)
        call = part.get("functionCall")
        if isinstance(call, dict):
            opaque: dict[str, Any] = {}
            if call.get("id"):
                opaque[GEMINI_ID] = call["id"]
            if signature:
                opaque[SIGNATURE] = signature
            return self.acc.tool_call(id=call.get("id") or None, name=str(call.get("name") or ""),
                                      arguments=json.dumps(call.get("args") or {}, ensure_ascii=False),
                                      opaque=opaque)
        if signature:
            self.acc.provider_data.setdefault(DATA_KEY, {}).setdefault("text_signature", signature)
        text = part.get("text")
        if not isinstance(text, str):
            return []
        if part.get("thought"):
            return self.acc.reasoning(text)
        return self.text(text)

    def _finish(self, reason: str) -> None:
        self.native_finish_reason = reason
        self.finish_reason = _FINISH.get(reason, "unknown")
        self.ended = True


class GeminiAdapter(HTTPChatAdapter):
    """Gemini's generateContent API over one provider's transport."""

    async def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        streaming = request.stream and self.capabilities.streaming

        def framing(content_type: str) -> FrameDecoder:
            if "event-stream" in content_type:
                return SSEFrames()
            return JSONArrayFrames() if streaming else WholeBody()

        payload = build_payload(request, self.config)
        reader = GeminiReader(self.provider_name, think_tags=self.capabilities.think_tags)
        path = model_path(request.model, stream=streaming)
        async with aclosing(self.read(path, payload, reader, framing=framing)) as events:
            async for event in events:
                yield event
