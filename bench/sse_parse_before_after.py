"""The OpenAI chat stream parser before and after it moved onto the shared read loop (issue 18), timed in one
process with the rounds interleaved, so load from other work on a shared machine falls on both alike.

``bench.sse_parse`` times its baseline and Parley's parser one after the other; on 2 shared cores their ratio
moves by a third from run to run, more than the change could. Here each round times the baseline (split lines,
``json.loads``), the old parser (``ChunkReader.sse_event`` fed by ``SSEDecoder``, loaded from a checkout of a
commit before the change) and the new one (``bench.sse_parse.parley_parser``: SSE framing into
``ChatChunkReader`` through ``WireReader.feed``), on the same bytes. Prints one JSON object with the medians.

    git worktree add --detach /tmp/before 5bd7f24
    python -m bench.sse_parse_before_after /tmp/before [--tokens N] [--chunk BYTES] [--rounds R]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.sse_parse import baseline, chunks_of, parley_parser, synthetic_stream
from orchestration.providers.sse import SSEDecoder


def old_parser(checkout: Path) -> Callable[[list[bytes]], int]:
    """The checkout's ``openai_chat.ChunkReader`` (which needs only modules that still exist)."""
    spec = importlib.util.spec_from_file_location("openai_chat_before",
                                                  checkout / "orchestration/providers/openai_chat.py")
    assert spec is not None and spec.loader is not None
    module: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def parse(chunks: list[bytes]) -> int:
        decoder = SSEDecoder()
        reader = module.ChunkReader("bench")
        n = 0
        for chunk in chunks:
            for sse in decoder.feed(chunk):
                if sse.data != "[DONE]":
                    n += len(reader.sse_event(sse.event, sse.data))
        reader.finish()
        return n

    return parse


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("before", type=Path, help="a checkout of a commit before the change")
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--chunk", type=int, default=1024, help="bytes per network read")
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    chunks = chunks_of(synthetic_stream(args.tokens), args.chunk)
    parsers = {"baseline": baseline, "before": old_parser(args.before), "after": parley_parser}
    samples: dict[str, list[float]] = {name: [] for name in parsers}
    for _ in range(args.rounds):
        for name, parse in parsers.items():
            start = time.perf_counter()
            parse(chunks)
            samples[name].append(time.perf_counter() - start)
    median = {name: statistics.median(times) for name, times in samples.items()}
    print(json.dumps({
        "benchmark": "sse_parse_before_after", "tokens": args.tokens, "chunk_bytes": args.chunk,
        "rounds": args.rounds,
        **{f"{name}_us_per_event": round(seconds / args.tokens * 1e6, 2) for name, seconds in median.items()},
        "before_ratio_to_baseline": round(median["before"] / median["baseline"], 2),
        "after_ratio_to_baseline": round(median["after"] / median["baseline"], 2),
        "after_to_before": round(median["after"] / median["before"], 3),
    }))


if __name__ == "__main__":
    main()
