"""Lone surrogates replaced by U+FFFD, for text that must be UTF-8 on its way out.

A Python string can hold a lone surrogate (a provider's ``\\ud800`` escape, an import file, bytes decoded with
``surrogateescape``); UTF-8 has no encoding for one. Where text leaves Parley as UTF-8 (a request body, the
history database) it is replaced, the same way everywhere, so what was sent is what was stored.
"""

from __future__ import annotations

REPLACEMENT = "\ufffd"


def replace_lone_surrogates(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD (a high and low surrogate in a row become the one
    character they encode)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text
