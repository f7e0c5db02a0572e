"""Typed values read from a provider's JSON, where a field of the wrong type reads as absent.

Providers and the proxies in front of them sometimes send a field with another type than documented
(``"content": 5``, ``"choices": {}``, a numeric id). Read through these helpers, such a field is simply not
there, instead of a TypeError or a validation error deep in the accumulator; what is then missing is reported
the usual way (a stream without its end marker, an empty answer), as a ProviderError with the partial answer.
"""

from __future__ import annotations

from typing import Any

# The largest token count read; anything larger (or negative, or not a whole number) is not a count.
MAX_COUNT = 2**53


def text(obj: Any, key: str) -> str | None:
    """``obj[key]`` when ``obj`` is an object and the value is a string."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, str) else None


def count(obj: Any, key: str) -> int | None:
    """``obj[key]`` when it is a whole number from 0 to MAX_COUNT (a provider may write 12.0)."""
    value = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    number = int(value)
    return number if 0 <= number <= MAX_COUNT else None


def mapping(obj: Any, key: str) -> dict[str, Any]:
    """``obj[key]`` when it is an object, else an empty one."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def items(obj: Any, key: str) -> list[Any]:
    """``obj[key]`` when it is an array, else an empty one."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, list) else []
