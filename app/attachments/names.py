"""An attachment's name cut to MAX_ATTACHMENT_NAME_CHARS, keeping what tells it apart: its start and its extension.

A name is shown in the chat, the attachment chips, search hits and exports, and sent to the model beside a
document's text. A file attached from disk already fits (file systems allow 255 characters), but an import file or
a hand-edited database can carry a name of any length; one cut here keeps the extension (the file's type at a
glance) and marks the cut with an ellipsis.
"""

from __future__ import annotations

from pathlib import PurePath

from app.attachments.limits import MAX_ATTACHMENT_NAME_CHARS

CUT_MARK = "…"
# An extension longer than this is not kept apart: it is just the end of a long name.
MAX_KEPT_EXTENSION_CHARS = 16


def fit_name(name: str, limit: int = MAX_ATTACHMENT_NAME_CHARS) -> str:
    """``name`` when it fits, else its start, ``…`` and its extension, ``limit`` characters in all."""
    if len(name) <= limit:
        return name
    suffix = PurePath(name).suffix
    if len(suffix) > MAX_KEPT_EXTENSION_CHARS:
        suffix = ""
    return name[:limit - len(CUT_MARK) - len(suffix)] + CUT_MARK + suffix


__all__ = ["CUT_MARK", "MAX_KEPT_EXTENSION_CHARS", "fit_name"]
