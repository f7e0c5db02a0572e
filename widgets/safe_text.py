"""Showing text that came from outside (models, tools, web pages, imported files) without letting it act.

Qt reads files and URLs on its own when a document or label holds rich text: ``QTextDocument.loadResource``
opens any path an ``<img>``, ``![]()``, ``<link>`` or CSS ``url()`` names (``/dev/zero`` ends the process, a FIFO
hangs it), and ``QLabel``/tooltips guess "rich text" from a leading tag. So:

- ``SafeDocument`` is the only document type used for model, tool or imported content. Its ``loadResource``
  never touches the file system or the network: images the app made itself are added with ``addResource`` and
  found before ``loadResource`` is asked; anything else gets an empty value.
- ``plain_label`` / ``plain_tooltip`` show outside text literally in a ``QLabel`` or a tooltip.
- ``visible_controls`` writes control characters (terminal escapes, bells, backspaces) in caret notation, as
  ``cat -v`` does (ESC as ``^[``, BEL as ``^G``), instead of the missing-glyph boxes Qt draws for them; the
  Unicode control pictures (``␛``) are missing from common fonts such as DejaVu and would be boxes too. C1
  controls and the bidi embeddings, overrides and isolates (which would show "evil" as "live") are written as
  ``\\u202e``, as the CLI writes them (app/cli/terminal_text.py).
"""

from __future__ import annotations

import html
import re
from typing import Any

from PySide6.QtCore import QObject, Qt, QUrl
from PySide6.QtGui import QImage, QTextDocument
from PySide6.QtWidgets import QLabel, QWidget

# C0 controls and DEL, except tab, line feed and carriage return, which the document lays out itself; the C1
# controls; and the bidi embeddings, overrides and isolates, which show text in another order than it is
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_CARET = ({code: f"^{chr(code + 0x40)}" for code in range(0x20) if code not in (0x09, 0x0A, 0x0D)} | {0x7F: "^?"}
          | {code: f"\\u{code:04x}" for code in (*range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))})

PLACEHOLDER_SIZE_PX = 1  # what an image nobody added stands as: one transparent pixel


def _placeholder_image() -> QImage:
    image = QImage(PLACEHOLDER_SIZE_PX, PLACEHOLDER_SIZE_PX, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    return image


class SafeDocument(QTextDocument):
    """A QTextDocument that loads nothing: every resource is one the app added itself, or a placeholder."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.refused = 0  # resources asked for and refused (counted so tests can check, not assume)
        self.has_quotes = False  # set by the answer builder; the chat view paints quote bars only then
        self.soft_breaks = False  # set by the answer builder when it added breaks to a long run (render_limits)
        self.quote_bars_by_format: dict[int, str] = {}  # the chat view's cache: block format index -> its bars

    def clear(self) -> None:
        super().clear()  # formats are collected anew: their indexes mean something else afterwards
        self.has_quotes = False
        self.soft_breaks = False
        self.quote_bars_by_format = {}

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        self.refused += 1
        if kind == QTextDocument.ResourceType.ImageResource.value:
            return _placeholder_image()
        return ""


def visible_controls(text: str) -> str:
    """``text`` with each control character in caret notation (ESC as ``^[``)."""
    return text.translate(_CARET) if _CONTROL.search(text) else text


def plain_label(text: str, parent: QWidget | None = None) -> QLabel:
    """A QLabel that shows ``text`` exactly as written (never as HTML)."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)
    return label


def set_plain_text(label: QLabel, text: str) -> None:
    """Set outside text on an existing label, literally."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setText(text)


TOOLTIP_MAX_CHARS = 2000  # longer text is cut with "…"; the full text is in the view the tooltip belongs to


def plain_tooltip(text: str) -> str:
    """A tooltip string that shows ``text`` literally (tooltips guess rich text, so it is escaped into some),
    cut at ``TOOLTIP_MAX_CHARS``; an empty text gives no tooltip."""
    if not text:
        return ""
    if len(text) > TOOLTIP_MAX_CHARS:
        text = text[:TOOLTIP_MAX_CHARS] + "…"
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"
