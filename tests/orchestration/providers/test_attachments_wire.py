"""Attachments in each wire format's documented request shape, checked over real HTTP on loopback.

For each of the six formats: one image, two images with text, a document, and a follow-up request that
carries the earlier turn's image again. The expected shapes are written out from each provider's documentation:

- OpenAI Chat Completions: user ``content`` parts ``{"type": "text"}`` and ``{"type": "image_url", "image_url":
  {"url": "data:<type>;base64,<data>"}}`` (platform.openai.com/docs/guides/images-vision).
- OpenAI Responses: ``{"type": "input_text"}`` and ``{"type": "input_image", "image_url": "data:..."}``.
- Anthropic Messages: ``{"type": "image", "source": {"type": "base64", "media_type": ..., "data": ...}}`` blocks,
  images before the text (docs.anthropic.com, vision).
- Gemini: parts ``{"inlineData": {"mimeType": ..., "data": ...}}`` and ``{"text": ...}`` (ai.google.dev, image
  understanding, inline data).
- Ollama /api/chat: the message's ``content`` string and an ``images`` list of base64 strings (ollama API docs).
- Cohere v2 chat: ``content`` items ``{"type": "text"}`` and ``{"type": "image_url", "image_url": {"url":
  "data:..."}}`` (docs.cohere.com, image inputs).
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest

from orchestration.engine import ModelRequest
from orchestration.messages import AssistantMessage, DocumentPart, ImagePart, Message, TextPart, UserMessage
from orchestration.wire_capture import capture_wire
from tests.support.adapter_runs import collect
from tests.support.attachment_files import image_bytes
from tests.support.attachment_wire import expected_user, turns
from tests.support.loopback import LoopbackServer
from tests.support.wire_kinds import KIND_IDS, KINDS, WireKind


def image(name: str, fmt: str = "PNG", color: tuple[int, int, int] = (200, 30, 30)) -> ImagePart:
    data = image_bytes(fmt=fmt, color=color)
    media = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}[fmt]
    return ImagePart(name=name, media_type=media, data=data, sha256=hashlib.sha256(data).hexdigest(),  # type: ignore[arg-type]
                     width=8, height=6)


NOTES = DocumentPart(name="notes.csv", media_type="text/csv", text="animal,count\notter,3", sha256="0" * 64, size=20)
NOTES_TEXT = "[Attached file: notes.csv]\nanimal,count\notter,3\n[End of notes.csv]"

async def sent(kind: WireKind, server: LoopbackServer, messages: list[Message]) -> dict[str, Any]:
    server.add("POST", kind.path, kind.answer("Seen."))
    outcome = await collect(kind.adapter(server), ModelRequest(model=kind.model, messages=messages))
    assert outcome.text == "Seen."
    return server.requests[-1].json


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
async def test_one_image(kind: WireKind, loopback: LoopbackServer):
    cat = image("cat.png")
    body = await sent(kind, loopback, [UserMessage(content="What is this?", attachments=[cat])])
    assert turns(kind.name, body) == [expected_user(kind.name, [("image", cat), ("text", "What is this?")])]


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
async def test_two_images_and_text(kind: WireKind, loopback: LoopbackServer):
    first, second = image("a.png"), image("b.jpg", "JPEG", (10, 200, 10))
    body = await sent(kind, loopback, [UserMessage(content="Which is greener?", attachments=[first, second])])
    assert turns(kind.name, body) == [expected_user(
        kind.name, [("image", first), ("image", second), ("text", "Which is greener?")])]


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
async def test_a_document_goes_as_text_with_its_name(kind: WireKind, loopback: LoopbackServer):
    body = await sent(kind, loopback, [UserMessage(content="How many otters?", attachments=[NOTES])])
    assert turns(kind.name, body) == [expected_user(kind.name, [("text", NOTES_TEXT), ("text", "How many otters?")])]


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
async def test_a_follow_up_carries_the_earlier_image(kind: WireKind, loopback: LoopbackServer):
    cat = image("cat.webp", "WEBP")
    history: list[Message] = [UserMessage(content="What is this?", attachments=[cat, NOTES]),
                              AssistantMessage(parts=[TextPart(text="A red square.")]),
                              UserMessage(content="And its colour?")]
    body = await sent(kind, loopback, history)
    wire = turns(kind.name, body)
    assert wire[0] == expected_user(kind.name, [("image", cat), ("text", NOTES_TEXT), ("text", "What is this?")])
    plain = {"role": "user", "parts": [{"text": "And its colour?"}]} if kind.name == "gemini" else (
        {"role": "user", "content": [{"type": "text", "text": "And its colour?"}]} if kind.name == "anthropic"
        else {"role": "user", "content": "And its colour?"})
    assert wire[-1] == plain
    assert len(wire) == 3


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
async def test_the_captured_request_shows_type_size_and_hash_never_base64(kind: WireKind, loopback: LoopbackServer):
    cat = image("cat.png")
    loopback.add("POST", kind.path, kind.answer("Seen."))
    with capture_wire() as capture:
        await collect(kind.adapter(loopback), ModelRequest(model=kind.model, messages=[
            UserMessage(content="What is this?", attachments=[cat])]))
    assert base64.b64encode(cat.data).decode()[:40] not in capture.request_body
    assert f"[image/png, {len(cat.data):,} bytes, sha256 {cat.sha256}]" in capture.request_body
    assert "What is this?" in capture.request_body
