"""The built-in engine against llama.cpp's server run directly, with the default (demo) model, in one run.

For each of R rounds, in alternating order:
- ``direct``: start ``python -m llama_cpp.server`` on a free loopback port, poll ``/v1/models`` until it
  answers, send one streamed chat request with httpx, and stop it;
- ``parley``: ``BuiltinEngine.ensure`` (child guard, log file, readiness) and the same request through
  ``BuiltinAdapter`` (the OpenAI adapter, accumulator and wire capture included), then ``aclose``.

Measured: start to the first token (the engine starting included), and tokens per second after the first
token (chunks with text, which llama-cpp-python sends one token each). Also the engine's resident memory once
loaded, and this process's own memory before the engine, with it running and after it stopped (the engine's
memory is a separate process's, given back when it stops).

    python -m bench.engine_start [--rounds R] [--tokens N]

Prints one JSON object (medians over R rounds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from app.engine.adapter import BuiltinAdapter
from app.engine.library import DEMO_MODEL, demo_model_path
from app.engine.manager import BuiltinEngine
from app.engine.process import free_port
from app.engine.settings import EngineSettings
from orchestration.engine import ModelRequest, TextChunk
from orchestration.messages import UserMessage
from orchestration.providers.presets import provider_from_preset

PROMPT = "Write a short story about a lighthouse keeper."


def rss_mb(pid: int | None = None) -> float:
    """Resident memory of ``pid`` (this process when None), from /proc, in MB."""
    path = f"/proc/{pid or 'self'}/status"
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def rates(started: float, first: float | None, last: float, tokens: int) -> dict[str, float]:
    first = first or last
    return {"first_token_s": round(first - started, 3),
            "tok_s": round((tokens - 1) / (last - first), 1) if tokens > 1 and last > first else 0.0,
            "tokens": tokens}


async def direct(settings: EngineSettings, max_tokens: int) -> dict[str, float]:
    port = free_port()
    model = demo_model_path()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", DEMO_MODEL,
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(settings.context_size),
               "--n_threads", str(settings.effective_threads()), "--n_threads_batch",
               str(settings.effective_threads())]
    started = time.perf_counter()
    # the same fork/exec the engine does (app/engine/process.py), so the two starts compare like for like
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,  # noqa: ASYNC220
                            start_new_session=True)
    base = f"http://127.0.0.1:{port}/v1"
    first = None
    tokens = 0
    try:
        async with httpx.AsyncClient(timeout=120, trust_env=False) as client:
            while True:
                try:
                    if (await client.get(base + "/models")).status_code == 200:
                        break
                except httpx.HTTPError:
                    await asyncio.sleep(0.25)
            body = {"model": DEMO_MODEL, "messages": [{"role": "user", "content": PROMPT}], "stream": True,
                    "max_tokens": max_tokens, "temperature": 0}
            async with client.stream("POST", base + "/chat/completions", json=body) as response:
                async for line in response.aiter_lines():
                    if not line.startswith("data: {"):
                        continue
                    delta = json.loads(line[6:])["choices"][0]["delta"]
                    if delta.get("content"):
                        tokens += 1
                        first = first or time.perf_counter()
        last = time.perf_counter()
        engine_mb = rss_mb(proc.pid)  # after the answer, as for Parley's
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)
    return {**rates(started, first, last, tokens), "engine_rss_mb": round(engine_mb, 1)}


async def parley(settings: EngineSettings, max_tokens: int, data_dir: Path) -> dict[str, float]:
    engine = BuiltinEngine(settings, data_dir)
    adapter = BuiltinAdapter(engine, provider_from_preset("builtin"))
    request = ModelRequest(model=DEMO_MODEL, messages=[UserMessage(content=PROMPT)], max_output_tokens=max_tokens,
                           temperature=0.0)
    before_mb = rss_mb()
    started = time.perf_counter()
    first = None
    tokens = 0
    async for event in adapter.stream(request):
        if isinstance(event, TextChunk) and event.text:
            tokens += 1
            first = first or time.perf_counter()
    last = time.perf_counter()
    engine_mb = rss_mb(engine.pid)
    with_engine_mb = rss_mb()
    await adapter.aclose()
    await engine.aclose()
    return {**rates(started, first, last, tokens), "engine_rss_mb": round(engine_mb, 1),
            "self_rss_before_mb": round(before_mb, 1), "self_rss_engine_running_mb": round(with_engine_mb, 1),
            "self_rss_after_stop_mb": round(rss_mb(), 1)}


def median(rows: list[dict[str, float]]) -> dict[str, float]:
    return {key: round(statistics.median(r[key] for r in rows), 3) for key in rows[0]}


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tokens", type=int, default=128)
    args = parser.parse_args()
    settings = EngineSettings()
    direct_rows, parley_rows = [], []
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(args.rounds):
            order = (direct, parley) if round_ % 2 == 0 else (parley, direct)
            for kind in order:
                if kind is direct:
                    direct_rows.append(await direct(settings, args.tokens))
                else:
                    parley_rows.append(await parley(settings, args.tokens, Path(folder)))
    d, p = median(direct_rows), median(parley_rows)
    print(json.dumps({
        "benchmark": "engine_start", "rounds": args.rounds, "max_tokens": args.tokens,
        "threads": settings.effective_threads(), "context_size": settings.context_size,
        "direct": d, "parley": p,
        "first_token_ratio": round(p["first_token_s"] / d["first_token_s"], 3) if d["first_token_s"] else None,
        "tok_s_ratio": round(p["tok_s"] / d["tok_s"], 3) if d["tok_s"] else None,
        "peak_self_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }))


if __name__ == "__main__":
    asyncio.run(main())
