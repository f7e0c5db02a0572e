"""The OpenAI Chat Completions wire format, for OpenAI and every OpenAI-compatible server.

Reads text, reasoning in each dialect (``reasoning_content``; ``reasoning``; OpenRouter's
``reasoning_details``; Mistral's ``thinking`` content arrays), tool-call deltas, usage, finish reasons and
mid-stream error frames, and turns them into provider events through the shared accumulator. Local servers
that leave ``<think>`` tags in the text (``Capabilities.think_tags``) have them split out as reasoning.
Anything that goes wrong mid-answer is raised as a ``ProviderError`` carrying the partial message.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, assert_never

from orchestration.accumulate import ResponseAccumulator
from orchestration.bounded_json import JSONLimitError, loads_bounded
from orchestration.engine import (
    ModelFinish,
    ModelRequest,
    NamedToolChoice,
    ProviderEvent,
    ResponseComplete,
    TokenUsage,
)
from orchestration.errors import (
    MalformedResponseError,
    ProviderError,
    StreamError,
    empty_response,
    event_too_large,
    stream_error_from_frame,
)
from orchestration.messages import (
    AssistantMessage,
    ImagePart,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolResultMessage,
    UserMessage,
    user_content,
)
from orchestration.providers import wire_values
from orchestration.providers.base import UNFRAMED_BODY_KEPT, HTTPChatAdapter
from orchestration.providers.config import ProviderConfig
from orchestration.providers.sse import EventTooLarge, SSEDecoder
from orchestration.redaction import cut_redacted
from orchestration.think_tags import InlineReasoning

if TYPE_CHECKING:  # httpx is imported when a client is first made (providers/transport.py)
    import httpx

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

def _assistant_to_wire(message: AssistantMessage, config: ProviderConfig) -> dict[str, Any]:
    calls = message.tool_calls
    # content may be null only beside tool calls, and some servers refuse even that (null_assistant_content)
    null = bool(calls) and config.capabilities.null_assistant_content
    out: dict[str, Any] = {"role": "assistant", "content": message.text or (None if null else "")}
    if calls:
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments or "{}"}}
            for c in calls
        ]
    reasoning_parts = [p for p in message.parts if isinstance(p, ReasoningPart)]
    details = [d for p in reasoning_parts for d in p.details]
    if details:
        out["reasoning_details"] = details
    if config.capabilities.echo_reasoning_content and message.reasoning:
        out["reasoning_content"] = message.reasoning
    return out


def user_to_wire(message: UserMessage) -> dict[str, Any]:
    """Plain text stays a string; with attachments, content parts: ``text`` and ``image_url`` with a data URL."""
    if not message.attachments:
        return {"role": "user", "content": message.content}
    content: list[dict[str, Any]] = []
    for piece in user_content(message):
        if isinstance(piece, TextPart):
            content.append({"type": "text", "text": piece.text})
        elif isinstance(piece, ImagePart):
            content.append({"type": "image_url", "image_url": {"url": piece.data_url()}})
        else:
            assert_never(piece)
    return {"role": "user", "content": content}


def messages_to_wire(request: ModelRequest, config: ProviderConfig) -> list[dict[str, Any]]:
    wire: list[dict[str, Any]] = []
    for message in request.messages:
        if isinstance(message, SystemMessage):
            wire.append({"role": "system", "content": message.content})
        elif isinstance(message, UserMessage):
            wire.append(user_to_wire(message))
        elif isinstance(message, AssistantMessage):
            wire.append(_assistant_to_wire(message, config))
        elif isinstance(message, ToolResultMessage):
            wire.append({"role": "tool", "tool_call_id": message.call_id, "content": message.content})
    return wire


def build_payload(request: ModelRequest, config: ProviderConfig) -> dict[str, Any]:
    caps = config.capabilities
    payload: dict[str, Any] = {"model": request.model, "messages": messages_to_wire(request, config)}
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

class ChunkReader:
    """Feeds OpenAI-style chunks (streamed deltas or one whole message) into an accumulator."""

    def __init__(self, provider_name: str, *, think_tags: bool = False) -> None:
        self.provider_name = provider_name
        self.acc = ResponseAccumulator()
        self.finish_reason: str | None = None
        self.native_finish_reason: str | None = None
        self.saw_done = False
        self.chunks = 0  # JSON chunks read; none at all is an empty response
        self.head = bytearray()  # the start of a body that gave no chunks, to say what it was
        self.secrets: list[str] = []
        self._inline = InlineReasoning(self.acc, enabled=think_tags)

    def chunk(self, obj: Any) -> list[ProviderEvent]:
        if not isinstance(obj, dict):
            raise self.malformed(f"expected a JSON object, got {type(obj).__name__}")
        self.chunks += 1
        if obj.get("error"):
            raise self._with_partial(stream_error_from_frame(self.provider_name, obj))
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
                self.finish_reason = wire_values.text(choice, "finish_reason")
            if wire_values.text(choice, "native_finish_reason"):
                self.native_finish_reason = wire_values.text(choice, "native_finish_reason")
        return events

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
            events += self._text(content)
        elif isinstance(content, list):
            for item in content:
                events += self._content_item(item)
        if isinstance(delta.get("refusal"), str) and delta["refusal"]:
            events += self._text(delta["refusal"])
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
            return self._text(item)
        if not isinstance(item, dict):
            return []
        kind = item.get("type")
        if kind == "text":
            return self._text(item.get("text") or "")
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

    def _text(self, text: str) -> list[ProviderEvent]:
        return self._inline.text(text)

    def finish(self) -> list[ProviderEvent]:
        events = self._inline.flush()
        events += self.acc.finish(map_finish(self.finish_reason), self.native_finish_reason or self.finish_reason)
        complete = events[-1]
        if (isinstance(complete, ResponseComplete) and complete.finish_reason in ("stop", "unknown")
                and not any(p.text if isinstance(p, TextPart | ReasoningPart) else True
                            for p in complete.message.parts)):
            # chunks came, but not one word, thought or call in them: as empty as an empty body
            raise empty_response(self.provider_name, f"{self.chunks} chunk(s) without text, reasoning or a tool "
                                                     "call")
        return events

    def malformed(self, what: str) -> ProviderError:
        return self._with_partial(MalformedResponseError(
            f"{self.provider_name} sent a malformed stream: {what}.", provider=self.provider_name))

    def attach_partial(self, error: ProviderError) -> None:
        """Keep what has arrived so far on ``error`` (the loop shows it as a partial answer)."""
        self._inline.flush()
        error.partial = self.acc.snapshot()

    def _with_partial(self, error: ProviderError) -> ProviderError:
        self.attach_partial(error)
        return error

    def sse_event(self, event_name: str, data: str) -> list[ProviderEvent]:
        """One SSE event: a chunk, an error frame, or the ``[DONE]`` marker."""
        if data.strip() == "[DONE]":
            self.saw_done = True
            return []
        if not data.strip():
            return []
        try:
            obj = loads_bounded(data, what=f"a stream event from {self.provider_name}")
        except JSONLimitError as exc:
            raise self.malformed(str(exc).rstrip(".")) from None
        except ValueError:
            raise self.malformed(f"a data line is not JSON ({data[:120]!r})") from None
        if event_name == "error":
            raise self._with_partial(stream_error_from_frame(self.provider_name, obj))
        return self.chunk(obj)

    def too_large(self, limit: int) -> ProviderError:
        return self._with_partial(event_too_large(self.provider_name, limit))

    def keep_head(self, chunk: bytes) -> None:
        if not self.chunks and len(self.head) < UNFRAMED_BODY_KEPT:
            self.head += chunk[:UNFRAMED_BODY_KEPT - len(self.head)]

    def end(self) -> list[ProviderEvent]:
        """The body is over: the closing events, or an error when it stopped before the answer was done or
        held no chunk at all."""
        if not self.chunks:
            raise self._with_partial(empty_response(
                self.provider_name, cut_redacted(self.head.decode("utf-8", "replace"), UNFRAMED_BODY_KEPT,
                                                 self.secrets).text))
        if not self.saw_done and self.finish_reason is None:
            raise self.ended_without_marker()
        return self.finish()

    def ended_without_marker(self) -> ProviderError:
        return self._with_partial(StreamError(
            f"The stream from {self.provider_name} ended before the answer was complete.",
            provider=self.provider_name))


class OpenAIChatAdapter(HTTPChatAdapter):
    """Chat Completions over one provider's transport (transport, capabilities and closing from the base)."""

    async def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        payload = build_payload(request, self.config)
        reader = ChunkReader(self.provider_name, think_tags=self.config.capabilities.think_tags)
        reader.secrets = self.transport.secrets()
        if not request.stream or not self.config.capabilities.streaming:
            payload.pop("stream", None)
            payload.pop("stream_options", None)
            obj = await self.transport.request_json("POST", "chat/completions", payload)
            for event in reader.chunk(obj) + reader.finish():
                yield event
            return
        async with self.transport.stream("POST", "chat/completions", payload) as response:
            content_type = response.headers.get("content-type", "")
            try:
                if "json" in content_type and "event-stream" not in content_type:
                    # Some servers ignore "stream": true (or answer an error with 200); read the whole body.
                    body = await self.transport.read_capped(response)
                    if not body.strip():
                        raise empty_response(self.provider_name, "")
                    try:
                        obj = loads_bounded(body, what=f"the answer from {self.provider_name}")
                    except JSONLimitError as exc:
                        raise reader.malformed(str(exc).rstrip(".")) from None
                    except ValueError:
                        raise reader.malformed("the body is neither SSE nor JSON") from None
                    for event in reader.chunk(obj):
                        yield event
                    reader.saw_done = True
                else:
                    async with aclosing(self._read_sse(response, reader)) as events:
                        async for event in events:
                            yield event
            except ProviderError as error:
                if error.partial is None:  # a broken or idle connection: keep what arrived
                    reader.attach_partial(error)
                raise
        for event in reader.end():
            yield event

    async def _read_sse(self, response: httpx.Response, reader: ChunkReader) -> AsyncGenerator[ProviderEvent, None]:
        decoder = SSEDecoder()
        async for chunk in self.transport.iter_bytes(response):
            reader.keep_head(chunk)
            try:
                events = decoder.feed(chunk)
            except EventTooLarge as exc:
                raise reader.too_large(exc.limit) from None
            for sse in events:
                for event in reader.sse_event(sse.event, sse.data):
                    yield event
        try:
            last = decoder.close()
        except EventTooLarge as exc:
            raise reader.too_large(exc.limit) from None
        for sse in last:
            for event in reader.sse_event(sse.event, sse.data):
                yield event
