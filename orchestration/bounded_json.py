"""JSON from outside Parley, parsed with a depth limit and a size limit.

``json.loads`` recurses once per nesting level, so a body nested ~1,000 deep raises ``RecursionError`` (a
traceback, not a message), and a huge body costs memory before anything can object. Every JSON that comes
from outside (provider bodies and stream events, tool-call arguments, settings.json, import files, MCP and
search results) goes through ``loads_bounded``: the size is checked first, then the depth by one linear scan
of the brackets outside strings, and only then is the text parsed. Past a limit it raises a
``JSONLimitError`` naming what was parsed and the limit; it is a ``ValueError``, so code that already treats
unreadable JSON as such keeps doing so, with a clearer message.
"""

from __future__ import annotations

import json
import re
from itertools import accumulate
from typing import Any

MAX_DEPTH = 100  # nesting levels of arrays and objects; real payloads stay far below
MAX_BYTES = 16 * 1024 * 1024  # 16 MiB of UTF-8

# Everything that is not structure: whole strings (escapes included), a string never closed (to the end),
# and runs of other characters. Removing these leaves only the brackets outside strings.
_NOT_BRACKETS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|"[\s\S]*|[^\[\]{}"]+', re.DOTALL)
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


class JSONLimitError(ValueError):
    """JSON past the depth or the size limit. ``what`` names what was being read, ``limit`` the limit."""

    code = "json_limit"

    def __init__(self, message: str, *, what: str, limit: int) -> None:
        super().__init__(message)
        self.message = message
        self.what = what
        self.limit = limit

    def __str__(self) -> str:
        return self.message


class JSONTooDeepError(JSONLimitError):
    code = "json_too_deep"


class JSONTooLargeError(JSONLimitError):
    code = "json_too_large"


def format_bytes(size: int) -> str:
    """A byte count as people read it: 16 MiB, 1 MiB, 512 KiB, 300 bytes."""
    for unit, scale in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size} bytes"


def json_depth(text: str) -> int:
    """The deepest nesting of arrays and objects in ``text``, counting brackets outside strings only.

    Linear in the length of the text and never recursive. A closing bracket with nothing open is not counted
    against the depth (the parser rejects such text anyway).
    """
    brackets = _NOT_BRACKETS.sub("", text)
    depth = deepest = 0
    for depth in accumulate(map(_STEP.__getitem__, brackets)):
        if depth > deepest:
            deepest = depth
    return deepest


def _deeper_than(text: str, limit: int) -> bool:
    if text.count("[") + text.count("{") <= limit:  # too few brackets to pass the limit: no scan needed
        return False
    return json_depth(text) > limit


def check_bounds(text: str | bytes, *, what: str, max_depth: int = MAX_DEPTH, max_bytes: int = MAX_BYTES) -> str:
    """``text`` as a string when it is within both limits; else ``JSONTooLargeError`` or ``JSONTooDeepError``."""
    if isinstance(text, bytes | bytearray):
        size = len(text)
        if size <= max_bytes:
            text = bytes(text).decode("utf-8", "replace")
    else:
        # Each character is at least one byte, at most four: encode only when the count cannot decide.
        size = len(text) if len(text) > max_bytes or len(text) * 4 <= max_bytes else len(
            text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        raise JSONTooLargeError(
            f"{what} is too large to read: {size:,} bytes, over the limit of {format_bytes(max_bytes)} "
            "for JSON.", what=what, limit=max_bytes)
    assert isinstance(text, str)
    if _deeper_than(text, max_depth):
        raise JSONTooDeepError(
            f"{what} is nested more than {max_depth} levels deep, over the limit of {max_depth} for JSON.",
            what=what, limit=max_depth)
    return text


def loads_bounded(text: str | bytes, *, what: str, max_depth: int = MAX_DEPTH, max_bytes: int = MAX_BYTES) -> Any:
    """``json.loads`` within a depth and a size limit.

    Raises ``JSONTooLargeError`` or ``JSONTooDeepError`` (both ``JSONLimitError``, a ``ValueError``) past a
    limit, and ``json.JSONDecodeError`` for text that is not JSON, as ``json.loads`` does.
    """
    checked = check_bounds(text, what=what, max_depth=max_depth, max_bytes=max_bytes)
    try:
        return json.loads(checked)
    except RecursionError:  # only when the interpreter's own limit is set below max_depth
        raise JSONTooDeepError(f"{what} is nested too deeply to read.", what=what, limit=max_depth) from None


def value_depth(value: Any) -> int:
    """The nesting depth of lists and dicts in an already parsed value, without recursing."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def dumps_bounded(value: Any, *, what: str, max_depth: int = MAX_DEPTH, **options: Any) -> str:
    """``json.dumps`` of a value parsed by someone else (an SDK), refused past ``max_depth`` levels with
    ``JSONTooDeepError`` instead of recursing into ``RecursionError``."""
    if value_depth(value) > max_depth:
        raise JSONTooDeepError(
            f"{what} is nested more than {max_depth} levels deep, over the limit of {max_depth} for JSON.",
            what=what, limit=max_depth)
    return json.dumps(value, **options)
