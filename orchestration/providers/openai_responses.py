"""The OpenAI Responses wire format (``POST /responses``), streaming and not.

Reads ``response.output_text.delta``, function-call items and their argument deltas, reasoning items (summary
parts, shown one after another, and ``reasoning_text`` from open-weight models), usage, and the ``error`` and
``response.failed`` events; the answer is complete at ``response.completed`` (or ``response.incomplete``).

State: when the provider keeps responses (``Capabilities.server_state``, OpenAI with ``store``), a continued
conversation sends ``previous_response_id`` and only the input after that response; the system prompt goes as
``instructions`` every time. When it does not (or has lost the response: a 400/404 about it before any output),
the full history is sent, with reasoning items (and their encrypted content) unchanged.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

from orchestration.engine import ModelFinish, ModelRequest, NamedToolChoice, ProviderEvent, TokenUsage
from orchestration.errors import ProviderError
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

PATH = "responses"
WIRE_FORMAT = "OpenAI Responses"  # named in an UnmappedPartError
FORMAT = "openai-responses"  # ReasoningPart.provider_format / AssistantMessage.provider_data key
ITEM_ID = "item_id"  # ToolCallPart.opaque key of the function_call item's own id
SUMMARY_SEPARATOR = "\n\n"  # shown between the summary parts of one reasoning item
REASONING_ITEM_FIELDS = ("type", "id", "summary", "encrypted_content", "content")  # sent back unchanged

_INCOMPLETE: dict[str, ModelFinish] = {"max_output_tokens": "length", "content_filter": "content_filter"}


# --- request -------------------------------------------------------------------------------------------

def continued_from(messages: list[Message], config: ProviderConfig) -> int | None:
    """Index of the latest assistant turn when this provider stored it (so ``previous_response_id`` can stand
    for everything up to it), else None: the full history is sent."""
    if not config.capabilities.server_state:
        return None
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, AssistantMessage):
            data = message.provider_data.get(FORMAT) or {}
            stored = data.get("store") and data.get("provider") == config.id
            return index if message.response_id and stored else None
    return None


def _reasoning_item(part: ReasoningPart, stored: bool) -> dict[str, Any] | None:
    """The reasoning item to send back: only one of ours, and only when the server can resolve it (stored)
    or it carries its encrypted content."""
    if part.provider_format != FORMAT or not part.details:
        return None
    item = {k: v for k, v in part.details[0].items() if k in REASONING_ITEM_FIELDS and v is not None}
    if not stored and not item.get("encrypted_content"):
        return None
    item.setdefault("summary", [])
    return item


def user_item(message: UserMessage) -> dict[str, Any]:
    """Plain text stays a string; with attachments, ``input_text`` and ``input_image`` (a data URL) parts."""
    if not message.attachments:
        return {"role": "user", "content": message.content}
    content = user_content_items(message, text=lambda text: {"type": "input_text", "text": text},
                                 image=lambda image: {"type": "input_image", "image_url": image.data_url()},
                                 wire_format=WIRE_FORMAT)
    return {"role": "user", "content": content}


def input_items(messages: list[Message]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for message in messages:
        match message:
            case SystemMessage():
                pass  # sent as the request's ``instructions``
            case UserMessage():
                items.append(user_item(message))
            case AssistantMessage():
                items += _assistant_items(message)
            case ToolResultMessage():
                items.append({"type": "function_call_output", "call_id": message.call_id,
                              "output": message.content})
            case _:
                unmapped(message, WIRE_FORMAT)
    return items


def _assistant_items(message: AssistantMessage) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    stored = bool((message.provider_data.get(FORMAT) or {}).get("store"))
    for part in message.parts:
        match part:
            case ReasoningPart():
                item = _reasoning_item(part, stored)
                if item is not None:
                    items.append(item)
            case TextPart():
                if part.text:
                    items.append({"role": "assistant", "content": part.text})
            case ToolCallPart():
                call: dict[str, Any] = {"type": "function_call", "call_id": part.id, "name": part.name,
                                        "arguments": part.arguments or "{}"}
                if part.opaque.get(ITEM_ID):
                    call["id"] = part.opaque[ITEM_ID]
                items.append(call)
            case _:
                unmapped(part, WIRE_FORMAT)
    return items


def _text_format(response_format: dict[str, Any]) -> dict[str, Any]:
    if response_format.get("type") == "json_schema":
        spec = response_format.get("json_schema") or {}
        out = {"type": "json_schema", "name": spec.get("name", "answer"), "schema": spec.get("schema", {})}
        if "strict" in spec:
            out["strict"] = spec["strict"]
        return out
    return {"type": "json_object"}


def build_payload(request: ModelRequest, config: ProviderConfig, *, continue_state: bool = True) -> dict[str, Any]:
    caps = config.capabilities.for_model(request.model)
    start = continued_from(request.messages, config) if continue_state else None
    history = request.messages if start is None else request.messages[start + 1:]
    payload: dict[str, Any] = {"model": request.model, "input": input_items(history), "store": caps.server_state}
    anchor = None if start is None else request.messages[start]
    if isinstance(anchor, AssistantMessage):  # continued_from only returns an assistant turn's index
        payload["previous_response_id"] = anchor.response_id
    instructions = "\n\n".join(m.content for m in request.messages if isinstance(m, SystemMessage))
    if instructions:
        payload["instructions"] = instructions
    reasoning_model = caps.supports_reasoning_control(request.model)
    if reasoning_model and not caps.server_state:
        payload["include"] = ["reasoning.encrypted_content"]  # stateless: reasoning must travel with us
    if request.tools and caps.tools:
        payload["tools"] = [{"type": "function", "name": t.name, "description": t.description,
                             "parameters": t.parameters, "strict": False} for t in request.tools]
        choice = request.tool_choice
        payload["tool_choice"] = ({"type": "function", "name": choice.name} if isinstance(choice, NamedToolChoice)
                                  else choice)
        if request.parallel_tool_calls is not None and caps.parallel_tool_calls:
            payload["parallel_tool_calls"] = request.parallel_tool_calls
    if request.max_output_tokens is not None:
        payload["max_output_tokens"] = request.max_output_tokens
    if request.temperature is not None:
        payload["temperature"] = request.temperature
    if request.reasoning_effort and reasoning_model:
        payload["reasoning"] = {"effort": request.reasoning_effort, "summary": "auto"}
    if request.response_format is not None and caps.response_format:
        payload["text"] = {"format": _text_format(request.response_format)}
    if request.stream and caps.streaming:
        payload["stream"] = True
    return payload


# --- response --------------------------------------------------------------------------------------------

def usage_from_responses(raw: dict[str, Any]) -> TokenUsage:
    input_details = wire_values.mapping(raw, "input_tokens_details")
    output_details = wire_values.mapping(raw, "output_tokens_details")
    return TokenUsage(input_tokens=wire_values.count(raw, "input_tokens") or 0,
                      output_tokens=wire_values.count(raw, "output_tokens") or 0,
                      reasoning_tokens=wire_values.count(output_details, "reasoning_tokens") or 0,
                      cached_tokens=wire_values.count(input_details, "cached_tokens") or 0, raw=raw)


class ResponsesReader(WireReader):
    end_marker = "response.completed event"

    def __init__(self, provider_name: str, provider_id: str, *, think_tags: bool = False) -> None:
        super().__init__(provider_name, think_tags=think_tags)
        self._provider_id = provider_id
        self._summary_parts = 0  # summary parts seen in the current reasoning item
        self._call_indexes: set[int] = set()

    def frame(self, event: str, obj: Any) -> list[ProviderEvent]:
        if not isinstance(obj, dict):
            raise self.malformed(f"expected a JSON object, got {type(obj).__name__}")
        kind = obj.get("type") or event
        if kind == "error":
            raise self.error_frame(obj)
        if kind == "response.failed":
            response = wire_values.mapping(obj, "response")
            raise self.error_frame(response.get("error") or obj)
        if kind in ("response.created", "response.in_progress"):
            return self._response_meta(obj.get("response"))
        if kind in ("response.completed", "response.incomplete"):
            return self._response_end(obj.get("response"))
        if kind == "response.output_item.added":
            return self._item_added(obj.get("output_index"), obj.get("item"))
        if kind == "response.output_item.done":
            return self._item_done(obj.get("output_index"), obj.get("item"))
        delta = obj.get("delta")
        if kind in ("response.output_text.delta", "response.refusal.delta") and isinstance(delta, str):
            return self.text(delta)
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta") and isinstance(
                delta, str):
            return self.acc.reasoning(delta)
        if kind == "response.reasoning_summary_part.added":
            self._summary_parts += 1
            return self.acc.reasoning(SUMMARY_SEPARATOR) if self._summary_parts > 1 else []
        if kind == "response.function_call_arguments.delta" and isinstance(delta, str):
            index = obj.get("output_index")
            if isinstance(index, int):
                return self.acc.tool_call_delta(index=index, arguments=delta)
        return []

    def _response_meta(self, response: Any) -> list[ProviderEvent]:
        if not isinstance(response, dict):
            return []
        self.acc.provider_data[FORMAT] = {"store": bool(response.get("store")), "provider": self._provider_id}
        return self.acc.meta(response.get("id"), response.get("model"))

    def _response_end(self, response: Any) -> list[ProviderEvent]:
        events = self._response_meta(response)
        response = response if isinstance(response, dict) else {}
        status = response.get("status")
        self.native_finish_reason = status if isinstance(status, str) else None
        if status == "incomplete":
            reason = wire_values.text(wire_values.mapping(response, "incomplete_details"), "reason")
            self.finish_reason = _INCOMPLETE.get(reason, "unknown") if reason else "unknown"
            self.native_finish_reason = reason or status
        else:
            self.finish_reason = "stop"
        usage = response.get("usage")
        if isinstance(usage, dict) and usage:
            events += self.acc.set_usage(usage_from_responses(usage))
        self.ended = True
        return events

    def _item_added(self, index: Any, item: Any) -> list[ProviderEvent]:
        if not isinstance(item, dict):
            return []
        if item.get("type") == "reasoning":
            self.acc.start_reasoning(provider_format=FORMAT)
            self._summary_parts = 0
        elif item.get("type") == "function_call" and isinstance(index, int):
            self._call_indexes.add(index)
            opaque = {ITEM_ID: item["id"]} if item.get("id") else None
            return self.acc.tool_call_delta(index=index, id=item.get("call_id"), name=item.get("name"),
                                            arguments=item.get("arguments") or None, opaque=opaque)
        return []

    def _item_done(self, index: Any, item: Any) -> list[ProviderEvent]:
        if not isinstance(item, dict):
            return []
        if item.get("type") == "reasoning":
            self.acc.reasoning_details([item], provider_format=FORMAT)
        elif item.get("type") == "function_call":
            whole_arguments = wire_values.text(item, "arguments") or ""
            if not isinstance(index, int) or index not in self._call_indexes:
                return self.acc.tool_call(id=item.get("call_id"), name=str(item.get("name") or ""),
                                          arguments=whole_arguments, opaque=_item_opaque(item))
            return self.acc.complete_call(index=index, fix_arguments=lambda raw: raw or whole_arguments)
        return []

    def whole(self, obj: Any) -> list[ProviderEvent]:
        """A non-streamed response object."""
        if not isinstance(obj, dict):
            raise self.malformed("the answer is not a JSON object")
        if obj.get("error"):
            raise self.error_frame(obj["error"])
        events = self._response_meta(obj)
        for item in wire_values.items(obj, "output"):
            if not isinstance(item, dict):
                continue
            if item.get("type") == "reasoning":
                self.acc.start_reasoning(provider_format=FORMAT)
                texts = [s.get("text", "") for s in item.get("summary") or [] if isinstance(s, dict)]
                events += self.acc.reasoning(SUMMARY_SEPARATOR.join(texts))
                events += self.acc.reasoning("".join(c.get("text", "") for c in item.get("content") or []
                                                     if isinstance(c, dict)))
                self.acc.reasoning_details([item], provider_format=FORMAT)
            elif item.get("type") == "message":
                for content in item.get("content") or []:
                    if isinstance(content, dict):
                        events += self.text(content.get("text") or content.get("refusal") or "")
            elif item.get("type") == "function_call":
                events += self._item_done(None, item)
        return events + self._response_end(obj)


def _item_opaque(item: dict[str, Any]) -> dict[str, Any]:
    return {ITEM_ID: item["id"]} if item.get("id") else {}


def _lost_state(error: ProviderError) -> bool:
    """The server does not have the response we continued from (expired, deleted, or never stored)."""
    return error.status in (400, 404) and "previous_response" in f"{error.body or ''} {error.message}".lower()


class OpenAIResponsesAdapter(HTTPChatAdapter):
    """The Responses API over one provider's transport."""

    async def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        payload = build_payload(request, self.config)
        try:
            async with aclosing(self._read(payload)) as events:
                async for event in events:
                    yield event
            return
        except ProviderError as error:
            # Nothing was shown yet (the server refused the request): fall back to the full history once.
            if "previous_response_id" not in payload or error.partial is not None or not _lost_state(error):
                raise
        async with aclosing(self._read(build_payload(request, self.config, continue_state=False))) as events:
            async for event in events:
                yield event

    def _read(self, payload: dict[str, Any]) -> AsyncGenerator[ProviderEvent, None]:
        reader = ResponsesReader(self.provider_name, self.config.id, think_tags=self.capabilities.think_tags)
        return self.read(PATH, payload, reader)
