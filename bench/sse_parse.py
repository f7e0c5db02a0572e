"""How fast the OpenAI-compatible stream parser turns SSE bytes into provider events.

Baseline, measured in the same run: splitting the same bytes into lines and ``json.loads`` of each data line,
the least any parser must do. Prints one JSON object.

    python -m bench.sse_parse [--tokens N] [--chunk BYTES] [--repeat R]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from orchestration.providers.framing import SSEFrames
from orchestration.providers.openai_chat import ChatChunkReader


def synthetic_stream(tokens: int) -> bytes:
    lines = []
    for i in range(tokens):
        chunk = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "model": "bench",
                 "choices": [{"index": 0, "delta": {"content": f"tok{i % 97} "}, "finish_reason": None}]}
        lines.append(f"data: {json.dumps(chunk)}\n\n")
    lines.append('data: {"id":"chatcmpl-bench","model":"bench","choices":[{"index":0,"delta":{},'
                 '"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n')
    return "".join(lines).encode()


def chunks_of(data: bytes, size: int) -> list[bytes]:
    return [data[i:i + size] for i in range(0, len(data), size)]


def baseline(chunks: list[bytes]) -> int:
    text = b"".join(chunks).decode()
    n = 0
    for line in text.split("\n"):
        if line.startswith("data: ") and line != "data: [DONE]":
            json.loads(line[6:])
            n += 1
    return n


def parley_parser(chunks: list[bytes]) -> int:
    """The bytes as the adapter's read loop takes them: SSE framing into the OpenAI chat reader."""
    framing = SSEFrames()
    reader = ChatChunkReader("bench")
    n = 0
    for chunk in chunks:
        n += len(list(reader.feed(framing, chunk)))
    n += len(list(reader.close(framing, b"")))
    reader.end()
    return n


def timed(fn, chunks: list[bytes], repeat: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(chunks)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--chunk", type=int, default=1024, help="bytes per network read")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    chunks = chunks_of(synthetic_stream(args.tokens), args.chunk)
    base = timed(baseline, chunks, args.repeat)
    ours = timed(parley_parser, chunks, args.repeat)
    print(json.dumps({
        "benchmark": "sse_parse", "tokens": args.tokens, "chunk_bytes": args.chunk,
        "baseline_us_per_event": round(base / args.tokens * 1e6, 2),
        "parley_us_per_event": round(ours / args.tokens * 1e6, 2),
        "parley_events_per_s": round(args.tokens / ours),
        "ratio_to_baseline": round(ours / base, 2),
    }))


if __name__ == "__main__":
    main()
