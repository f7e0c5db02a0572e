"""Markdown to a flat stream of tokens, with nothing in it that Qt would act on.

The chat view builds its document itself from these tokens (``markdown_document``); no model text ever reaches
Qt as HTML or markdown, so nothing in an answer can make Qt load a file or a URL. Raw HTML in an answer comes
out as ``("html", text)`` and is shown literally.

The parser is pyromark (pulldown-cmark, CommonMark with GitHub tables, strikethrough, task lists and ``$``/``$$``
math): it parses 20,000 list items in about 60 ms where markdown-it-py takes about a second (bench/RESULTS.md).
Its events are turned into small tuples here so the builder dispatches on one string. A lone surrogate (which
the parser cannot take) is shown as U+FFFD.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, cast

import pyromark

from orchestration.unicode_text import replace_lone_surrogates

OPTIONS = (pyromark.Options.ENABLE_TABLES | pyromark.Options.ENABLE_STRIKETHROUGH
           | pyromark.Options.ENABLE_TASKLISTS | pyromark.Options.ENABLE_MATH)

Token = tuple[str, str, Any]
"""``(kind, tag, value)``. Kinds:

- ``start`` / ``end``: a container; tag is pyromark's name (Paragraph, Heading, BlockQuote, CodeBlock, List, Item,
  Emphasis, Strong, Strikethrough, Link, Image, Table, TableHead, TableRow, TableCell); value is its details
  (heading level, code language, list start number, link or image URL and title, table alignments).
- ``text``, ``code`` (inline code), ``html`` (raw HTML, shown as text), ``math`` (tag ``inline`` or
  ``display``): value is the text.
- ``break`` (tag ``soft`` or ``hard``), ``rule``, ``task`` (value: checked).
"""

_SIMPLE = {"Text": "text", "Code": "code", "Html": "html", "InlineHtml": "html"}
_BARE = {"Rule": ("rule", "", None), "SoftBreak": ("break", "soft", None), "HardBreak": ("break", "hard", None)}


def tokens(markdown: str) -> Iterator[Token]:
    """The tokens of ``markdown``, in document order."""
    simple, bare_events = _SIMPLE, _BARE
    for event in pyromark.events(replace_lone_surrogates(markdown), options=OPTIONS):
        if isinstance(event, str):
            bare = bare_events.get(event)
            if bare is not None:
                yield bare
            continue
        ((kind, value),) = event.items()
        if kind == "Text":
            yield "text", "", value
        elif kind == "Start" or kind == "End":
            side = "start" if kind == "Start" else "end"
            if isinstance(value, str):
                yield side, value, None
            else:
                ((tag, details),) = cast(dict[str, Any], value).items()
                yield side, tag, details
        elif kind in simple:
            yield simple[kind], "", value
        elif kind == "InlineMath":
            yield "math", "inline", value
        elif kind == "DisplayMath":
            yield "math", "display", value
        elif kind == "TaskListMarker":
            yield "task", "", value
        else:  # footnotes, metadata and the like are off; show anything new as its text
            yield "text", "", value if isinstance(value, str) else ""
