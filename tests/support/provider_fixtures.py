"""Access to the recorded provider streams in ../shared/fixtures/providers (read-only, never copied).

``keys(format)`` lists the EXPECTED.json entries of one format at import time, so tests can be parametrized
over them; when ../shared is absent it returns a single placeholder and ``require()`` skips the test.
"""

from __future__ import annotations

import functools
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "providers"
ABSENT = "<../shared absent>"


def available() -> bool:
    return (ROOT / "EXPECTED.json").is_file()


def require() -> Path:
    """The fixtures directory, or skip the calling test."""
    if not available():
        pytest.skip("../shared is absent")
    return ROOT


@functools.cache
def expected_all() -> dict[str, Any]:
    return json.loads((ROOT / "EXPECTED.json").read_text(encoding="utf-8"))


def keys(fmt: str, *, prefix: tuple[str, ...] = ()) -> list[str]:
    """EXPECTED.json keys whose expected.format is ``fmt`` (optionally under the given directories)."""
    if not available():
        return [ABSENT]
    found = [k for k, v in expected_all().items()
             if v.get("expected", {}).get("format") == fmt and (not prefix or k.startswith(prefix))]
    return sorted(found)


def entry(key: str) -> dict[str, Any]:
    require()
    return expected_all()[key]


@functools.cache
def body(key: str) -> bytes:
    """The HTTP body as a server would send it. ``.chunks.jsonl`` lines are wrapped as SSE data events."""
    raw = (require() / key).read_bytes()
    if key.endswith(".chunks.jsonl"):
        return b"".join(b"data: " + line + b"\n\n" for line in raw.splitlines() if line.strip())
    return raw


def content_type(key: str) -> str:
    http = entry(key).get("http") or {}
    return http.get("content_type") or "text/event-stream"


def split_events(data: bytes) -> list[bytes]:
    """The body cut after each blank line (one piece per SSE event, as servers usually flush)."""
    pieces: list[bytes] = []
    start = 0
    for sep in (b"\r\n\r\n", b"\n\n"):
        if sep in data:
            break
    else:
        return [data]
    while True:
        end = data.find(sep, start)
        if end < 0:
            break
        pieces.append(data[start:end + len(sep)])
        start = end + len(sep)
    if start < len(data):
        pieces.append(data[start:])
    return pieces


def cut(data: bytes, positions: list[int]) -> list[bytes]:
    """``data`` split at the given byte offsets (any order, duplicates and out-of-range ignored)."""
    points = sorted({p for p in positions if 0 < p < len(data)})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds) if b > a]
