"""Tooltips that show text exactly as written.

Qt guesses whether a tooltip is rich text (``Qt::mightBeRichText``), so a title or a tool's message holding
``<b>`` or ``<img src=...>`` would be drawn as HTML, and an image would be read from disk. Titles, tool names
and warnings come from models, tools and imported files, so every tooltip built from them goes through
``plain_tooltip``: escaped, whitespace kept, and cut at ``TOOLTIP_MAX_CHARS``.
"""

from __future__ import annotations

import html

TOOLTIP_MAX_CHARS = 2000  # longer text is cut with "…"; the full text is in the view the tooltip belongs to


def plain_tooltip(text: str) -> str:
    """``text`` as a tooltip Qt shows literally; an empty text gives no tooltip."""
    if not text:
        return ""
    if len(text) > TOOLTIP_MAX_CHARS:
        text = text[:TOOLTIP_MAX_CHARS] + "…"
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"
