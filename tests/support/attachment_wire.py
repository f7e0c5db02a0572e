"""What each wire format's documentation says a user turn with attachments looks like, for the request-shape
tests (the sources are listed in tests/orchestration/providers/test_attachments_wire.py)."""

from __future__ import annotations

import base64
from typing import Any

from orchestration.messages import ImagePart

Piece = tuple[str, Any]  # ("text", text) or ("image", ImagePart)


def expected_user(kind: str, pieces: list[Piece]) -> dict[str, Any]:
    """The user turn as ``kind``'s documentation shapes it."""
    def b64(part: ImagePart) -> str:
        return base64.b64encode(part.data).decode()

    def url(part: ImagePart) -> str:
        return f"data:{part.media_type};base64,{b64(part)}"

    if kind in ("openai", "cohere"):
        return {"role": "user", "content": [
            {"type": "text", "text": v} if k == "text" else {"type": "image_url", "image_url": {"url": url(v)}}
            for k, v in pieces]}
    if kind == "openai-responses":
        return {"role": "user", "content": [
            {"type": "input_text", "text": v} if k == "text" else {"type": "input_image", "image_url": url(v)}
            for k, v in pieces]}
    if kind == "anthropic":
        return {"role": "user", "content": [
            {"type": "text", "text": v} if k == "text"
            else {"type": "image", "source": {"type": "base64", "media_type": v.media_type, "data": b64(v)}}
            for k, v in pieces]}
    if kind == "gemini":
        return {"role": "user", "parts": [
            {"text": v} if k == "text" else {"inlineData": {"mimeType": v.media_type, "data": b64(v)}}
            for k, v in pieces]}
    assert kind == "ollama"
    out: dict[str, Any] = {"role": "user", "content": "\n\n".join(v for k, v in pieces if k == "text")}
    images = [b64(v) for k, v in pieces if k == "image"]
    if images:
        out["images"] = images
    return out


def turns(kind: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    key = {"openai-responses": "input", "gemini": "contents"}.get(kind, "messages")
    return body[key]
