"""Builders for the streams of the non-OpenAI wire formats, for loopback servers that play a model.

The shapes follow the recorded streams in ../shared (event names, block and item structure, end markers), so
a test can script a tool-using conversation and check what the adapter sends back.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tests.support.loopback import Response

Call = tuple[str | None, str, dict[str, Any]]  # (id or None, name, arguments)


def _pieces(text: str, size: int = 5) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


# --- Anthropic Messages --------------------------------------------------------------------------------

def anthropic_events(*, text: str = "", thinking: str = "", signature: str = "", redacted: str = "",
                     calls: Sequence[Call] = (), stop: str | None = None, message_id: str = "msg_test",
                     end: bool = True) -> list[tuple[str, dict[str, Any]]]:
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": {
        "id": message_id, "type": "message", "role": "assistant", "model": "claude-test", "content": [],
        "stop_reason": None, "usage": {"input_tokens": 20, "cache_read_input_tokens": 5, "output_tokens": 1}}})]
    index = 0

    def block(start: dict[str, Any], deltas: list[dict[str, Any]]) -> None:
        nonlocal index
        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": start}))
        for delta in deltas:
            events.append(("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1

    if redacted:
        block({"type": "redacted_thinking", "data": redacted}, [])
    if thinking:
        block({"type": "thinking", "thinking": "", "signature": ""},
              [{"type": "thinking_delta", "thinking": p} for p in _pieces(thinking)]
              + [{"type": "signature_delta", "signature": signature}])
    if text:
        block({"type": "text", "text": ""}, [{"type": "text_delta", "text": p} for p in _pieces(text)])
    for call_id, name, args in calls:
        raw = json.dumps(args) if args else ""
        block({"type": "tool_use", "id": call_id, "name": name, "input": {}},
              [{"type": "input_json_delta", "partial_json": p} for p in (_pieces(raw) or [""])])
    events.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop or ("tool_use" if calls else "end_turn")},
                                     "usage": {"output_tokens": 9}}))
    if end:
        events.append(("message_stop", {"type": "message_stop"}))
    return events


def anthropic_stream(**kwargs: Any) -> Response:
    return Response.sse(anthropic_events(**kwargs))


# --- Google Gemini -------------------------------------------------------------------------------------

def gemini_chunks(*, text: str = "", thought: str = "", calls: Sequence[Call] = (), signature: str = "",
                  finish: str | None = "STOP", response_id: str = "resp-gemini") -> list[dict[str, Any]]:
    """Chunks of a Gemini stream: thoughts, then text, then all calls in one chunk (the first carrying the
    signature), the last chunk with ``finishReason`` and usage (no finish when ``finish`` is None)."""
    def chunk(parts: list[dict[str, Any]], last: bool = False) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        out: dict[str, Any] = {"candidates": [candidate], "modelVersion": "gemini-test", "responseId": response_id}
        if last and finish:
            candidate["finishReason"] = finish
            out["usageMetadata"] = {"promptTokenCount": 11, "candidatesTokenCount": 5, "thoughtsTokenCount": 3,
                                    "totalTokenCount": 19}
        return out

    chunks = [chunk([{"text": p, "thought": True}]) for p in _pieces(thought)]
    chunks += [chunk([{"text": p}]) for p in _pieces(text)]
    call_parts: list[dict[str, Any]] = []
    for i, (call_id, name, args) in enumerate(calls):
        function: dict[str, Any] = {"name": name, "args": args}
        if call_id:
            function["id"] = call_id
        part: dict[str, Any] = {"functionCall": function}
        if signature and i == 0:
            part["thoughtSignature"] = signature
        call_parts.append(part)
    chunks.append(chunk(call_parts or [{"text": ""}], last=True))
    return chunks


def gemini_stream(**kwargs: Any) -> Response:
    body = b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in gemini_chunks(**kwargs))
    return Response.body(body, "text/event-stream")


# --- Ollama native -------------------------------------------------------------------------------------

def ollama_lines(*, text: str = "", thinking: str = "", calls: Sequence[Call] = (), done: bool = True,
                 done_reason: str = "stop") -> list[dict[str, Any]]:
    def line(message: dict[str, Any]) -> dict[str, Any]:
        return {"model": "qwen3", "created_at": "2025-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": "", **message}, "done": False}

    lines = [line({"thinking": p}) for p in _pieces(thinking)] + [line({"content": p}) for p in _pieces(text)]
    if calls:
        lines.append(line({"tool_calls": [{"function": {"name": name, "arguments": args}}
                                          for _, name, args in calls]}))
    if done:
        lines.append({**line({}), "done": True, "done_reason": done_reason, "prompt_eval_count": 14,
                      "eval_count": 6, "total_duration": 1000})
    return lines


def ollama_stream(**kwargs: Any) -> Response:
    body = "".join(json.dumps(line) + "\n" for line in ollama_lines(**kwargs))
    return Response.body(body, "application/x-ndjson", chunk_size=40)


# --- OpenAI Responses ----------------------------------------------------------------------------------

def responses_events(*, text: str = "", summary: Sequence[str] = (), calls: Sequence[Call] = (),
                     response_id: str = "resp_test", store: bool = True, encrypted: str = "ENC",
                     end: str | None = "response.completed") -> list[tuple[str, dict[str, Any]]]:
    """A Responses stream: an optional reasoning item (summary parts), a message item, function-call items."""
    response = {"id": response_id, "object": "response", "model": "gpt-test", "status": "in_progress",
                "store": store, "output": []}
    events: list[tuple[str, dict[str, Any]]] = [("response.created", {"type": "response.created",
                                                                       "response": response})]
    index = 0

    def add(name: str, **fields: Any) -> None:
        events.append((name, {"type": name, **fields}))

    if summary:
        item = {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": encrypted}
        add("response.output_item.added", output_index=index, item=item)
        for part, piece in enumerate(summary):
            add("response.reasoning_summary_part.added", output_index=index, summary_index=part,
                part={"type": "summary_text", "text": ""})
            for delta in _pieces(piece):
                add("response.reasoning_summary_text.delta", output_index=index, summary_index=part, delta=delta)
        done = {**item, "summary": [{"type": "summary_text", "text": p} for p in summary]}
        add("response.output_item.done", output_index=index, item=done)
        index += 1
    if text:
        add("response.output_item.added", output_index=index,
            item={"id": "msg_1", "type": "message", "role": "assistant", "content": []})
        for delta in _pieces(text):
            add("response.output_text.delta", output_index=index, content_index=0, delta=delta)
        add("response.output_item.done", output_index=index, item={"id": "msg_1", "type": "message"})
        index += 1
    for call_id, name, args in calls:
        raw = json.dumps(args)
        item = {"id": f"fc_{call_id}", "type": "function_call", "call_id": call_id, "name": name, "arguments": ""}
        add("response.output_item.added", output_index=index, item=item)
        for delta in _pieces(raw):
            add("response.function_call_arguments.delta", output_index=index, delta=delta)
        add("response.output_item.done", output_index=index, item={**item, "arguments": raw})
        index += 1
    if end:
        add(end, response={**response, "status": "completed" if end == "response.completed" else "incomplete",
                           "incomplete_details": {"reason": "max_output_tokens"},
                           "usage": {"input_tokens": 30, "output_tokens": 12,
                                     "input_tokens_details": {"cached_tokens": 0},
                                     "output_tokens_details": {"reasoning_tokens": 4}}})
    return events


def responses_stream(**kwargs: Any) -> Response:
    return Response.sse(responses_events(**kwargs))


# --- Cohere v2 -----------------------------------------------------------------------------------------

def cohere_events(*, text: str = "", thinking: str = "", plan: str = "", calls: Sequence[tuple[str, str, str]] = (),
                  finish: str | None = None, end: bool = True) -> list[tuple[str, dict[str, Any]]]:
    """A Cohere v2 stream; ``calls`` are (id, name, raw arguments) so a test can send Cohere's "null"."""
    events: list[tuple[str, dict[str, Any]]] = [("message-start", {
        "id": "cohere-msg", "type": "message-start",
        "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": []}}})]

    def add(name: str, **fields: Any) -> None:
        events.append((name, {"type": name, **fields}))

    if thinking:
        add("content-start", index=0, delta={"message": {"content": {"type": "thinking", "thinking": ""}}})
        for piece in _pieces(thinking):
            add("content-delta", index=0, delta={"message": {"content": {"thinking": piece}}})
        add("content-end", index=0)
    for piece in _pieces(plan):
        add("tool-plan-delta", delta={"message": {"tool_plan": piece}})
    if text:
        index = 1 if thinking else 0
        add("content-start", index=index, delta={"message": {"content": {"type": "text", "text": ""}}})
        for piece in _pieces(text):
            add("content-delta", index=index, delta={"message": {"content": {"text": piece}}})
        add("content-end", index=index)
    for index, (call_id, name, raw) in enumerate(calls):
        add("tool-call-start", index=index, delta={"message": {"tool_calls": {
            "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}}})
        for piece in _pieces(raw):
            add("tool-call-delta", index=index, delta={"message": {"tool_calls": {"function": {"arguments": piece}}}})
        add("tool-call-end", index=index)
    if end:
        add("message-end", delta={"finish_reason": finish or ("TOOL_CALL" if calls else "COMPLETE"),
                                  "usage": {"billed_units": {"input_tokens": 5, "output_tokens": 7},
                                            "tokens": {"input_tokens": 50, "output_tokens": 9}}})
    return events


def cohere_stream(**kwargs: Any) -> Response:
    return Response.sse(cohere_events(**kwargs), done=True)
