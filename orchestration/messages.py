"""Provider-neutral conversation messages.

Adapters translate these to and from their wire formats. Opaque provider data (reasoning signatures,
encrypted reasoning, response ids) rides on the part or message it belongs to, so the next request can send
it back unchanged.

Every model here builds its validator when it is first used (``defer_build``), not at import: the window
imports this module at start but needs no message or provider event until a conversation is opened or a
message sent (issue 17, bench/RESULTS.md).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Annotated, Any, Literal, Never, NoReturn

from pydantic import BaseModel, ConfigDict, Field

from orchestration.bounded_json import loads_bounded
from orchestration.events import ToolStatus


class TextPart(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid")

    kind: Literal["text"] = "text"
    text: str


class ReasoningPart(BaseModel):
    """Reasoning the model showed (or hid: ``text`` may be empty when only ``encrypted`` is present)."""

    model_config = ConfigDict(defer_build=True, extra="forbid")

    kind: Literal["reasoning"] = "reasoning"
    text: str = ""
    signature: str | None = None
    encrypted: str | None = Field(default=None, description="redacted or encrypted reasoning to send back")
    provider_format: str | None = Field(default=None, description="which wire format the opaque data is for")
    details: list[dict[str, Any]] = Field(default_factory=list, description="provider detail records, unchanged")


class ToolCallPart(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid")

    kind: Literal["tool_call"] = "tool_call"
    id: str
    name: str
    arguments: str = Field(description="raw argument JSON exactly as streamed")
    opaque: dict[str, Any] = Field(default_factory=dict)

    def parsed_arguments(self) -> Any:
        """Arguments as JSON; an empty string means no arguments. Raises ValueError when not JSON."""
        if not self.arguments.strip():
            return {}
        return loads_bounded(self.arguments, what=f"the argument object for {self.name}")


AssistantPart = Annotated[TextPart | ReasoningPart | ToolCallPart, Field(discriminator="kind")]


class ImagePart(BaseModel):
    """An image the user attached, already prepared for sending (decoded, checked, downscaled)."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True, ser_json_bytes="base64",
                              val_json_bytes="base64")

    kind: Literal["image"] = "image"
    name: str = Field(description="the file name the user attached, shown and exported")
    media_type: Literal["image/png", "image/jpeg", "image/webp"]  # a GIF is sent as its first frame in PNG
    data: bytes = Field(repr=False, description="the encoded image as sent")
    sha256: str = Field(description="hex digest of data: the attachment's address in the store")
    width: int = Field(ge=1)
    height: int = Field(ge=1)

    def base64(self) -> str:
        return base64.b64encode(self.data).decode("ascii")

    def data_url(self) -> str:
        return f"data:{self.media_type};base64,{self.base64()}"


class DocumentPart(BaseModel):
    """A document the user attached, sent as text: its extracted text (already cut to the limit, with a note
    saying so) under the file name."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    kind: Literal["document"] = "document"
    name: str
    media_type: str
    text: str = Field(description="the text sent, including any note about a cut or a missing text layer")
    sha256: str = Field(description="hex digest of the original file's bytes")
    size: int = Field(ge=0, description="bytes of the original file")
    note: str = Field("", description="for the user: the text was cut, or a PDF has no text layer")

    def wire_text(self) -> str:
        """The text part a wire format sends for this document."""
        return f"[Attached file: {self.name}]\n{self.text}\n[End of {self.name}]"


Attachment = Annotated[ImagePart | DocumentPart, Field(discriminator="kind")]


class SystemMessage(BaseModel):
    model_config = ConfigDict(defer_build=True)

    role: Literal["system"] = "system"
    content: str


class UserMessage(BaseModel):
    model_config = ConfigDict(defer_build=True)

    role: Literal["user"] = "user"
    content: str
    attachments: list[Attachment] = Field(default_factory=list, description="sent before the text, in order")

    @property
    def images(self) -> list[ImagePart]:
        return [a for a in self.attachments if isinstance(a, ImagePart)]


UserContent = TextPart | ImagePart
"""One piece of a user turn as every wire format sends it: text (the prompt, or a document's text) or an image."""


def user_content(message: UserMessage) -> list[UserContent]:
    """The user turn as an ordered list of pieces: each attachment in order (a document as a text piece with its
    file name), then the prompt's text (left out when empty and there are attachments). Attachments come first
    because Anthropic and Google advise putting images before the question about them."""
    pieces: list[UserContent] = []
    for attachment in message.attachments:
        match attachment:
            case ImagePart():
                pieces.append(attachment)
            case DocumentPart():
                pieces.append(TextPart(text=attachment.wire_text()))
            case _:
                unmapped(attachment, "A user turn's content")
    if message.content or not pieces:
        pieces.append(TextPart(text=message.content))
    return pieces


def user_content_items(message: UserMessage, *, text: Callable[[str], dict[str, Any]],
                       image: Callable[[ImagePart], dict[str, Any]], wire_format: str) -> list[dict[str, Any]]:
    """``user_content`` written as one wire format's content items: ``text`` writes a text piece, ``image`` an
    image; a piece of another type is an ``UnmappedPartError`` naming ``wire_format``."""
    items: list[dict[str, Any]] = []
    for piece in user_content(message):
        match piece:
            case TextPart():
                items.append(text(piece.text))
            case ImagePart():
                items.append(image(piece))
            case _:
                unmapped(piece, wire_format)
    return items


class AssistantMessage(BaseModel):
    model_config = ConfigDict(defer_build=True)

    role: Literal["assistant"] = "assistant"
    parts: list[AssistantPart] = Field(default_factory=list)
    response_id: str | None = None
    model: str | None = None
    provider_data: dict[str, Any] = Field(default_factory=dict)

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def reasoning(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, ReasoningPart))

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        return [p for p in self.parts if isinstance(p, ToolCallPart)]


class ToolResultMessage(BaseModel):
    model_config = ConfigDict(defer_build=True)

    role: Literal["tool"] = "tool"
    call_id: str
    name: str
    content: str
    status: ToolStatus = "ok"


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")
]


class UnmappedPartError(TypeError):
    """A message, part or attachment type that a wire format has no mapping for. A bug, not a user error: a new
    type was added without teaching every wire format to send it."""


def unmapped(value: Never, wire_format: str) -> NoReturn:
    """The last case of every dispatch over message, part and attachment types. Checked by mypy as
    ``typing.assert_never`` is (a type left unhandled makes the call a type error); at run time a value that
    slipped past validation is an ``UnmappedPartError`` naming the format, instead of a part silently dropped."""
    raise UnmappedPartError(f"{wire_format} has no mapping for a {type(value).__name__}: {value!r:.200}")
