"""Hostile input for the fuzz suite: text with lone surrogates and control characters, arbitrary JSON, and
valid documents with one part replaced by something of the wrong type.

Mutating a valid document reaches the validators and the code behind them; random bytes alone rarely get past
the first parse. Nesting stays shallow here on purpose: depth limits have their own tests.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

# Every code point, lone surrogates (which no UTF-8 encoder accepts) and control characters included.
any_char = st.characters(exclude_categories=())
hostile_text = st.one_of(
    st.text(any_char, max_size=40),
    st.lists(st.sampled_from(["\ud800", "\udfff", "\x00", "\x1b[2J", "\u202e", "\r\n", "\ufffd", "é", "😀", "a"]),
             max_size=8).map("".join),
)

json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([10**400, -(10**400), 2**63, -(2**63) - 1]),  # past a float and past SQLite's integers
    st.floats(allow_nan=False, allow_infinity=False), hostile_text,
)
json_values: st.SearchStrategy[Any] = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(hostile_text, inner, max_size=4)),
    max_leaves=12,
)


def encode_json(value: Any) -> str:
    """JSON text that may hold lone surrogates as ``\\udXXX`` escapes, as any peer may send."""
    return json.dumps(value, ensure_ascii=True)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {k: (_replaced(v, rest, new) if k == head else v) for k, v in value.items()}
    return [(_replaced(v, rest, new) if i == head else v) for i, v in enumerate(value)]


def _lookup(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _same_kind(value: Any) -> st.SearchStrategy[Any]:
    """Another value of the same JSON type, so that validation passes and the value reaches what is behind it."""
    if isinstance(value, bool) or value is None:
        return st.just(value)
    if isinstance(value, int):
        return st.integers(min_value=-(2**64), max_value=2**64)
    if isinstance(value, float):
        return st.floats()
    if isinstance(value, str):
        return hostile_text
    return st.just(value)


WRONG_TYPES: dict[type, st.SearchStrategy[Any]] = {
    str: st.sampled_from([5, -1, 1.5, True, None, [], {}, ["a"], {"text": "a"}]),
    int: st.sampled_from(["5", "", None, 1.5, 10**400, [], {}, True]),
    float: st.sampled_from(["1.5", None, 10**400, [], {}]),
    bool: st.sampled_from(["true", 1, 0, None, [], {}]),
    list: st.sampled_from([{}, "a", 5, None, [None], [5], [[]], [""]]),
    dict: st.sampled_from([[], "a", 5, None, True, {"": None}]),
}


def _wrong_kind(value: Any) -> st.SearchStrategy[Any]:
    """A value of another JSON type than ``value``'s, as a confused or hostile server sends."""
    return WRONG_TYPES.get(type(value), st.sampled_from(["a", 5, [], {}]))


@st.composite
def mutated(draw: st.DrawFn, document: Any, replacements: st.SearchStrategy[Any] | str | None = json_values) -> Any:
    """``document`` with one to three of its values (at any depth, the whole included) replaced: by
    ``replacements``; by other values of the same type (None), so validation passes; or by values of another
    type ("wrong type"), the way a provider's JSON goes wrong field by field."""
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        path = draw(st.sampled_from(_paths(document)))
        old = _lookup(document, path)
        if replacements is None:
            new = draw(_same_kind(old))
        elif replacements == "wrong type":
            new = draw(_wrong_kind(old))
        else:
            assert not isinstance(replacements, str)
            new = draw(replacements)
        document = _replaced(document, path, new)
    return document


@st.composite
def damaged_bytes(draw: st.DrawFn, text: str) -> bytes:
    """``text`` as UTF-8 with a few bytes overwritten, cut short, or re-encoded in another codec."""
    data = bytearray(text.encode("utf-8"))
    how = draw(st.sampled_from(["flip", "cut", "latin-1", "utf-16"]))
    if how == "cut" and data:
        return bytes(data[: draw(st.integers(min_value=0, max_value=len(data) - 1))])
    if how == "latin-1":
        return text.encode("latin-1", errors="replace") + draw(st.binary(max_size=4))
    if how == "utf-16":
        return text.encode("utf-16")
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        if not data:
            break
        data[draw(st.integers(min_value=0, max_value=len(data) - 1))] = draw(st.integers(min_value=0, max_value=255))
    return bytes(data)
