"""Lone surrogates replaced by U+FFFD, for text that must be UTF-8 on its way out.

A Python string can hold a lone surrogate (a provider's ``\\ud800`` escape, an import file, bytes decoded with
``surrogateescape``); UTF-8 has no encoding for one, and neither has the markdown parser. Where text leaves
Parley as UTF-8 (a request body, the history database) or goes to the parser, each one is replaced the same
way, one U+FFFD per surrogate, so what was sent is what was stored and a text cut anywhere renders the same.
"""

from __future__ import annotations

import re

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_lone_surrogates(text: str) -> str:
    """``text`` with each surrogate code point replaced by U+FFFD (in a Python string every surrogate is alone:
    a pair decoded from JSON is already the one character it encodes)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(REPLACEMENT, text)
    return text
