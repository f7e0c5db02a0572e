"""Typed values read from a provider's JSON, where a field of the wrong type reads as absent.

Providers and the proxies in front of them sometimes send a field with another type than documented
(``"content": 5``, ``"choices": {}``, a numeric id). Read through these helpers, such a field is simply not
there, instead of a TypeError or a validation error deep in the accumulator; what is then missing is reported
the usual way (a stream without its end marker, an empty answer), as a ProviderError with the partial answer.
"""

from __future__ import annotations

from typing import Any


def text(obj: Any, key: str) -> str | None:
    """``obj[key]`` when ``obj`` is an object and the value is a string."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, str) else None


def integer(obj: Any, key: str) -> int | None:
    """``obj[key]`` when it is an integer (not a boolean)."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def mapping(obj: Any, key: str) -> dict[str, Any]:
    """``obj[key]`` when it is an object, else an empty one."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def items(obj: Any, key: str) -> list[Any]:
    """``obj[key]`` when it is an array, else an empty one."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, list) else []


def as_text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def as_index(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
