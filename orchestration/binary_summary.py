"""Request bodies with their attached files shown as type, size and hash instead of base64.

The run inspector shows each model call's request as sent (orchestration/wire_capture.py); an image there is
megabytes of base64 that says nothing to a person and would fill the capture limit. Every wire format's image
shape is recognised: a ``data:`` URL (OpenAI chat, OpenAI Responses, Cohere), a ``data`` string beside
``media_type`` or ``mimeType`` (Anthropic's base64 source, Gemini's ``inlineData``) and Ollama's ``images``
list. The payload itself is never changed; a copy is returned.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from typing import Any

_DATA_URL = re.compile(r"data:([\w.+-]+/[\w.+-]+);base64,", re.ASCII)
_TYPE_KEYS = ("media_type", "mimeType", "mime_type")
_MAGIC = ((b"\x89PNG", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF8", "image/gif"),
          (b"RIFF", "image/webp"), (b"%PDF", "application/pdf"))


def describe_binary(media_type: str | None, encoded: str) -> str:
    """``[image/png, 12,345 bytes, sha256 …]`` for base64 text (its type sniffed when not given)."""
    try:
        data = base64.b64decode(encoded, validate=False)
    except (binascii.Error, ValueError):
        return f"[{media_type or 'binary'}, {len(encoded):,} characters of base64 that do not decode]"
    if media_type is None:
        media_type = next((kind for magic, kind in _MAGIC if data.startswith(magic)), "binary")
    return f"[{media_type}, {len(data):,} bytes, sha256 {hashlib.sha256(data).hexdigest()}]"


def summarize_binary(value: Any) -> Any:
    if isinstance(value, str):
        match = _DATA_URL.match(value)
        return describe_binary(match.group(1), value[match.end():]) if match else value
    if isinstance(value, list):
        return [summarize_binary(item) for item in value]
    if not isinstance(value, dict):
        return value
    media_type = next((value[k] for k in _TYPE_KEYS if isinstance(value.get(k), str)), None)
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key == "data" and media_type is not None and isinstance(item, str):
            out[key] = describe_binary(media_type, item)
        elif key == "images" and isinstance(item, list) and all(isinstance(i, str) for i in item):
            out[key] = [describe_binary(None, i) for i in item]
        else:
            out[key] = summarize_binary(item)
    return out
