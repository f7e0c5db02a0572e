"""Builders for OpenAI Chat Completions stream chunks, for loopback servers that play a model.

The shapes follow the recorded streams in ../shared (id/model on every chunk, tool-call deltas by index,
a usage chunk with empty choices, then ``[DONE]``).
"""

from __future__ import annotations

import json
from typing import Any

from tests.support.loopback import Response


def _chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": "test-model",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}


def stream_chunks(text: str = "", *, reasoning: str = "", calls: list[tuple[str, str, dict[str, Any]]] = (),
                  piece: int = 4, usage: tuple[int, int] = (12, 7)) -> list[dict[str, Any]]:
    """Chunks that stream ``reasoning`` then ``text`` in ``piece``-character deltas, then tool calls."""
    chunks = [_chunk({"role": "assistant", "content": ""})]
    for i in range(0, len(reasoning), piece):
        chunks.append(_chunk({"reasoning_content": reasoning[i:i + piece]}))
    for i in range(0, len(text), piece):
        chunks.append(_chunk({"content": text[i:i + piece]}))
    for index, (call_id, name, args) in enumerate(calls):
        raw = json.dumps(args)
        chunks.append(_chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                              "function": {"name": name, "arguments": ""}}]}))
        for i in range(0, len(raw), piece):
            chunks.append(_chunk({"tool_calls": [{"index": index, "function": {"arguments": raw[i:i + piece]}}]}))
    chunks.append(_chunk({}, "tool_calls" if calls else "stop"))
    chunks.append({"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": "test-model", "choices": [],
                   "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                             "total_tokens": usage[0] + usage[1]}})
    return chunks


def stream_response(text: str = "", **kwargs: Any) -> Response:
    return Response.sse(stream_chunks(text, **kwargs), done=True)
