"""What one endless stream line costs: a 50 MB SSE data line against a normal 50 MB stream.

Bytes go through the same path as a streamed OpenAI-compatible answer (SSE framing and the chat chunk reader)
in 64 KiB reads. Three cases, measured in the same run:

- ``normal``: 50 MB of ordinary small events (the baseline);
- ``long_line``: one 50 MB data line, which the 16 MiB event limit (``MAX_EVENT_BYTES``) refuses while it is
  still arriving;
- ``long_line_unbounded``: the same line with the event limit lifted, which is what reading it used to cost
  (the whole line is buffered; only the JSON size limit then refuses it).

Reported: wall time, and the peak of memory allocated while reading (tracemalloc, in a separate pass so that
tracing does not slow the timed one), each also as a ratio to the baseline. Prints one JSON object.

    python -m bench.long_line [--mb 50] [--chunk BYTES]
"""

from __future__ import annotations

import argparse
import json
import time
import tracemalloc
from collections.abc import Iterator

from orchestration.errors import MalformedResponseError, ResponseTooLargeError
from orchestration.providers.framing import SSEFrames
from orchestration.providers.openai_chat import ChatChunkReader
from orchestration.providers.sse import MAX_EVENT_BYTES

UNBOUNDED = 1 << 40


def normal_stream(size: int) -> bytes:
    event = (b'data: {"id":"chatcmpl-bench","model":"bench","choices":[{"index":0,"delta":{"content":"token "},'
             b'"finish_reason":null}]}\n\n')
    return event * (size // len(event))


def long_line(size: int) -> bytes:
    head = b'data: {"id":"chatcmpl-bench","model":"bench","choices":[{"index":0,"delta":{"content":"'
    return head + b"a" * (size - len(head) - 32) + b'"},"finish_reason":null}]}\n\n'


def reads(data: bytes, chunk: int) -> Iterator[bytes]:
    view = memoryview(data)
    for i in range(0, len(data), chunk):
        yield bytes(view[i:i + chunk])


def read_stream(data: bytes, chunk: int, limit: int) -> str:
    """Feed ``data`` as the adapter does; returns how it ended ("complete" or "refused")."""
    framing = SSEFrames(limit)
    reader = ChatChunkReader("bench")
    try:
        for piece in reads(data, chunk):
            for _ in reader.feed(framing, piece):
                pass
        for _ in reader.close(framing, b""):
            pass
    except ResponseTooLargeError:
        return "refused while arriving"
    except MalformedResponseError:  # buffered whole, then refused by the JSON size limit
        return "refused after buffering"
    return "complete"


def measure(data: bytes, chunk: int, limit: int) -> dict[str, object]:
    start = time.perf_counter()
    outcome = read_stream(data, chunk, limit)
    seconds = time.perf_counter() - start
    tracemalloc.start()
    read_stream(data, chunk, limit)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {"outcome": outcome, "seconds": round(seconds, 3), "peak_mb": round(peak / 1e6, 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=50, help="size of each stream in MB")
    parser.add_argument("--chunk", type=int, default=64 * 1024, help="bytes per network read")
    args = parser.parse_args()
    size = args.mb * 1_000_000
    normal = measure(normal_stream(size), args.chunk, MAX_EVENT_BYTES)
    capped = measure(long_line(size), args.chunk, MAX_EVENT_BYTES)
    unbounded = measure(long_line(size), args.chunk, UNBOUNDED)

    def ratios(case: dict[str, object]) -> dict[str, float]:
        return {"time_ratio_to_normal": round(float(case["seconds"]) / float(normal["seconds"]), 2),  # type: ignore[arg-type]
                "memory_ratio_to_normal": round(float(case["peak_mb"]) / max(float(normal["peak_mb"]), 0.1), 1)}  # type: ignore[arg-type]

    print(json.dumps({
        "benchmark": "long_line", "stream_mb": args.mb, "chunk_bytes": args.chunk,
        "event_limit_bytes": MAX_EVENT_BYTES,
        "normal": normal,
        "long_line": {**capped, **ratios(capped)},
        "long_line_unbounded": {**unbounded, **ratios(unbounded)},
    }))


if __name__ == "__main__":
    main()
