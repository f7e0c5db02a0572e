"""loads_bounded: the depth and size limits for JSON from outside, checked before parsing."""

from __future__ import annotations

import json

import pytest

from orchestration.bounded_json import (
    MAX_BYTES,
    MAX_DEPTH,
    JSONLimitError,
    JSONTooDeepError,
    JSONTooLargeError,
    json_depth,
    loads_bounded,
)


def deep(levels: int, open_: str = "[", close: str = "]") -> str:
    return open_ * levels + close * levels


@pytest.mark.parametrize(("text", "depth"), [
    ("1", 0), ("[]", 1), ('{"a": [1, {"b": []}]}', 4),
    ('["[[[[", "]]"]', 1),                    # brackets inside strings are not structure
    ('[" \\" [[[ "]', 1),                      # nor after an escaped quote
    ('["\\\\", [[]]]', 3),                     # an escaped backslash ends before the closing quote
    ('[[ "never closed [[[[[[', 2),            # nothing after an unclosed quote counts
])
def test_depth_counts_brackets_outside_strings(text: str, depth: int) -> None:
    assert json_depth(text) == depth


def test_1100_deep_is_a_typed_error_naming_what_and_the_limit() -> None:
    with pytest.raises(JSONTooDeepError) as caught:
        loads_bounded(deep(1_100), what="a stream event from Test")
    error = caught.value
    assert isinstance(error, JSONLimitError) and isinstance(error, ValueError)
    assert error.limit == MAX_DEPTH == 100
    assert str(error) == ("a stream event from Test is nested more than 100 levels deep, over the limit of 100 "
                          "for JSON.")


def test_objects_count_like_arrays_and_the_limit_is_inclusive() -> None:
    assert loads_bounded('{"a":' * 99 + "[1]" + "}" * 99, what="x") is not None  # exactly 100 levels
    with pytest.raises(JSONTooDeepError):
        loads_bounded('{"a":' * 100 + "[1]" + "}" * 100, what="x")


def test_deep_text_inside_a_string_is_fine() -> None:
    text = json.dumps({"text": deep(5_000)})
    assert loads_bounded(text, what="x") == {"text": deep(5_000)}


def test_size_limit_in_bytes_for_str_and_bytes() -> None:
    with pytest.raises(JSONTooLargeError) as caught:
        loads_bounded(b'"' + b"x" * MAX_BYTES + b'"', what="the answer")
    assert str(caught.value) == "the answer is too large to read: 16,777,218 bytes, over the limit of 16 MiB for JSON."
    # 600 characters of four bytes each are 2,400 bytes: over a 2,000-byte limit although under 2,000 characters
    with pytest.raises(JSONTooLargeError):
        loads_bounded('"' + "\U0001F600" * 600 + '"', what="x", max_bytes=2_000)
    assert loads_bounded('"' + "é" * 900 + '"', what="x", max_bytes=2_000) == "é" * 900


def test_not_json_is_still_a_decode_error() -> None:
    with pytest.raises(json.JSONDecodeError):
        loads_bounded("{nope", what="x")
