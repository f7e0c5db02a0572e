"""Fuzzing the body framings (SSE, NDJSON, streamed JSON array, whole body): any bytes, cut anywhere, give
text frames and never an exception, and where a body is cut never changes what comes out."""

from __future__ import annotations

import json
from collections.abc import Callable

from hypothesis import example, given
from hypothesis import strategies as st

from orchestration.providers.framing import FrameDecoder, JSONArrayFrames, NDJSONFrames, SSEFrames, WholeBody
from tests.fuzz.strategies import encode_json, json_values

DECODERS: dict[str, Callable[[], FrameDecoder]] = {
    "sse": SSEFrames, "ndjson": NDJSONFrames, "json-array": JSONArrayFrames, "whole": WholeBody}
FRAGMENTS = [b"data: ", b"data:", b"event: ", b"id: 1", b"retry: 5", b": comment", b"\n", b"\r\n", b"\r", b"\n\n",
             b"[", b"]", b",", b"{", b"}", b'"', b"\\", b'\\"', b"[DONE]", b"\xef\xbb\xbf", b"\xff", b"\xe2\x82",
             b"\x00", b" ", b"\t"]
bodies = st.one_of(
    st.binary(max_size=200),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), json_values.map(encode_json).map(str.encode)), max_size=20).map(
        b"".join),
    st.lists(json_values.map(encode_json), max_size=5).map(lambda items: ("[" + ",\r\n".join(items) + "]").encode()),
    st.lists(json_values.map(encode_json), max_size=5).map(
        lambda items: "".join(f"data: {item}\n\n" for item in items).encode()),
)


def _frames(make: Callable[[], FrameDecoder], body: bytes, cuts: list[int]) -> list[tuple[str, str]]:
    decoder = make()
    frames: list[tuple[str, str]] = []
    previous = 0
    for cut in sorted({min(c, len(body)) for c in cuts}):
        frames += decoder.feed(body[previous:cut])
        previous = cut
    frames += decoder.feed(body[previous:])
    frames += decoder.close()
    return frames


@given(st.sampled_from(sorted(DECODERS)), bodies, st.lists(st.integers(min_value=0, max_value=300), max_size=12))
@example("sse", b"data: a\r", [8])
@example("sse", b"data: a\r\n\r\ndata: b\r\n\r\n", [8, 9, 10])
@example("ndjson", b'{"a": "\xe2\x82\xac"}\n', [9])
@example("json-array", b'[{"a": "}"}, {"b": "\\""}]', [5, 13])
def test_frames_do_not_depend_on_where_the_body_is_cut(name, body, cuts) -> None:
    make = DECODERS[name]
    whole = _frames(make, body, [])
    assert all(isinstance(event, str) and isinstance(data, str) for event, data in whole)
    assert _frames(make, body, cuts) == whole


@given(st.lists(json_values, max_size=5), st.lists(st.integers(min_value=0, max_value=300), max_size=8))
def test_ndjson_and_sse_give_back_each_json_document(documents, cuts) -> None:
    ndjson = "".join(json.dumps(d) + "\n" for d in documents).encode()
    sse = "".join(f"data: {json.dumps(d)}\n\n" for d in documents).encode()
    for make, body in ((NDJSONFrames, ndjson), (SSEFrames, sse)):
        frames = _frames(make, body, cuts)
        assert [json.loads(data) for _, data in frames] == [json.loads(json.dumps(d)) for d in documents]
