"""The bounded Content-Encoding decoder: decodes gzip and deflate, and never produces more than its limit."""

from __future__ import annotations

import gzip
import zlib

import pytest

from tools.web.decode import BoundedDecoder, CorruptContent, UnsupportedEncoding


def decode_all(decoder: BoundedDecoder, data: bytes, piece: int = 1000) -> bytes:
    out = b"".join(decoder.feed(data[i:i + piece]) for i in range(0, len(data), piece))
    return out + decoder.flush()


@pytest.mark.parametrize(("encoding", "compress"), [
    (None, lambda d: d),
    ("identity", lambda d: d),
    ("gzip", gzip.compress),
    ("x-gzip", gzip.compress),
    ("deflate", zlib.compress),
    ("deflate", lambda d: zlib.compress(d)[2:-4]),
])
@pytest.mark.parametrize("piece", [1, 7, 4096])
def test_round_trip_in_any_chunking(encoding: str | None, compress, piece: int) -> None:
    data = bytes(range(256)) * 40
    decoder = BoundedDecoder(encoding, limit=len(data))
    assert decode_all(decoder, compress(data), piece) == data
    assert not decoder.exceeded and decoder.total == len(data)


@pytest.mark.parametrize("encoding", [None, "gzip", "deflate"])
def test_output_stops_at_the_limit(encoding: str | None) -> None:
    data = b"z" * 1_000_000
    compressed = {None: data, "gzip": gzip.compress(data), "deflate": zlib.compress(data)}[encoding]
    decoder = BoundedDecoder(encoding, limit=10_000)
    out = decode_all(decoder, compressed, piece=50_000)
    assert out == b"z" * 10_000 and decoder.exceeded
    assert decoder.feed(b"more") == b""


def test_exactly_the_limit_is_not_exceeded() -> None:
    decoder = BoundedDecoder("gzip", limit=5)
    assert decode_all(decoder, gzip.compress(b"12345")) == b"12345" and not decoder.exceeded


@pytest.mark.parametrize("encoding", ["br", "zstd", "compress", "gzip, gzip"])
def test_other_encodings_are_refused_by_name(encoding: str) -> None:
    with pytest.raises(UnsupportedEncoding) as caught:
        BoundedDecoder(encoding, limit=10)
    assert str(caught.value) == encoding


def test_corrupt_data() -> None:
    with pytest.raises(CorruptContent):
        BoundedDecoder("gzip", limit=100).feed(b"definitely not gzip")


def test_bytes_after_the_stream_end_are_ignored() -> None:
    decoder = BoundedDecoder("gzip", limit=100)
    assert decode_all(decoder, gzip.compress(b"done") + b"trailing junk") == b"done"
