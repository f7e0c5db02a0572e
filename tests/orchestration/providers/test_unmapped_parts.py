"""Every wire format maps every message, part and attachment type, or says it cannot: a type it has no mapping
for (one that slipped past validation, or a new type not yet taught to the format) is an ``UnmappedPartError``
naming the format, never a part silently left out of the request. mypy checks the same statically (the
dispatch ends in ``unmapped``); these run the guard."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from orchestration.engine import ModelRequest
from orchestration.messages import AssistantMessage, TextPart, UnmappedPartError, UserMessage
from orchestration.providers import anthropic, cohere, gemini, ollama_native, openai_chat, openai_responses
from orchestration.providers.config import ProviderConfig
from tests.support.adapter_requests import preset_config


class VideoPart(BaseModel):
    """A part type no wire format knows."""

    kind: Literal["video"] = "video"


class NoteMessage(BaseModel):
    """A message type no wire format knows."""

    role: Literal["note"] = "note"
    content: str = "remember this"


Build = Callable[[ModelRequest, ProviderConfig], dict[str, Any]]
FORMATS: list[tuple[str, Build, str]] = [
    ("openai", openai_chat.build_payload, "OpenAI Chat Completions"),
    ("cohere", cohere.build_payload, "Cohere v2 chat"),
    ("ollama-native", ollama_native.build_payload, "Ollama chat"),
    ("anthropic", anthropic.build_payload, "Anthropic Messages"),
    ("gemini", gemini.build_payload, "Gemini generateContent"),
    ("openai-responses", openai_responses.build_payload, "OpenAI Responses"),
]
formats = pytest.mark.parametrize(("preset", "build", "wire_format"), FORMATS, ids=[f[0] for f in FORMATS])


def send(build: Build, preset: str, *messages: Any) -> dict[str, Any]:
    request = ModelRequest.model_construct(model="m", messages=list(messages))
    return build(request, preset_config(preset, "http://127.0.0.1:9/v1"))


@formats
def test_the_known_types_map(preset: str, build: Build, wire_format: str) -> None:
    """The control: the same conversation without the unknown type goes through."""
    payload = send(build, preset, UserMessage(content="hi"), AssistantMessage(parts=[TextPart(text="hello")]))
    assert "hello" in str(payload)


@formats
def test_an_unknown_assistant_part_is_an_error(preset: str, build: Build, wire_format: str) -> None:
    turn = AssistantMessage.model_construct(parts=[TextPart(text="before"), VideoPart()])
    with pytest.raises(UnmappedPartError, match=f"^{wire_format} has no mapping for a VideoPart"):
        send(build, preset, UserMessage(content="hi"), turn)


@formats
def test_an_unknown_message_is_an_error(preset: str, build: Build, wire_format: str) -> None:
    with pytest.raises(UnmappedPartError, match=f"^{wire_format} has no mapping for a NoteMessage"):
        send(build, preset, UserMessage(content="hi"), NoteMessage())


@formats
def test_an_unknown_attachment_is_an_error(preset: str, build: Build, wire_format: str) -> None:
    turn = UserMessage.model_construct(content="look", attachments=[VideoPart()])
    with pytest.raises(UnmappedPartError, match=r"^A user turn's content has no mapping for a VideoPart"):
        send(build, preset, turn)
