"""The framings hold at most MAX_EVENT_BYTES (16 MiB) of one event: past it they raise while the event is still
arriving, never after buffering all of it."""

from __future__ import annotations

import pytest

from orchestration.providers.framing import JSONArrayFrames, NDJSONFrames, SSEFrames, WholeBody
from orchestration.providers.sse import MAX_EVENT_BYTES, EventTooLarge, SSEDecoder

LIMIT = 1_000  # small limits make the same rules cheap to check


def feed_until_refused(decoder: object, head: bytes, piece: bytes, pieces: int) -> int:
    """Bytes fed (``head``, then ``piece`` repeatedly) until the decoder refuses; fails if it never does."""
    fed = 0
    with pytest.raises(EventTooLarge) as caught:
        for chunk in [head, *[piece] * pieces]:
            fed += len(chunk)
            decoder.feed(chunk)  # type: ignore[attr-defined]
    assert caught.value.limit == LIMIT
    return fed


def test_the_limit_is_16_mib() -> None:
    assert MAX_EVENT_BYTES == 16 * 1024 * 1024


@pytest.mark.parametrize(("decoder", "head"), [
    (SSEFrames(LIMIT), b"data: "),
    (NDJSONFrames(LIMIT), b""),
    (JSONArrayFrames(LIMIT), b'[{"x": "'),
    (WholeBody(LIMIT), b""),
], ids=["sse", "ndjson", "json-array", "whole"])
def test_one_endless_event_is_refused_as_soon_as_it_passes_the_limit(decoder: object, head: bytes) -> None:
    fed = feed_until_refused(decoder, head, b"a" * 100, 1_000)
    assert LIMIT < fed <= LIMIT + 100


def test_multibyte_text_counts_in_bytes() -> None:
    fed = feed_until_refused(SSEDecoder(LIMIT), b"data: ", "é".encode() * 50, 1_000)  # 100 bytes, 50 characters
    assert LIMIT < fed <= LIMIT + 100


def test_many_data_lines_of_one_event_count_together() -> None:
    fed = feed_until_refused(SSEDecoder(LIMIT), b"", b"data: " + b"a" * 94 + b"\n", 1_000)
    assert LIMIT < fed <= LIMIT + 2 * 101  # line ends are not held, so a line or two more than the bytes held


def test_events_under_the_limit_pass_however_many() -> None:
    sse = SSEDecoder(LIMIT)
    ndjson = NDJSONFrames(LIMIT)
    array = JSONArrayFrames(LIMIT)
    event = b"data: " + b"a" * 900 + b"\n\n"
    line = b'{"a": "' + b"a" * 900 + b'"}\n'
    assert sum(len(sse.feed(event)) for _ in range(100)) == 100
    assert sum(len(ndjson.feed(line)) for _ in range(100)) == 100
    assert sum(len(array.feed(b"[" if i == 0 else b"," + line)) for i in range(101)) == 100
    assert sum(len(sse.feed(b": keep-alive " + b"x" * 900 + b"\n")) for _ in range(100)) == 0  # comments are not held
