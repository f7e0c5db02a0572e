"""Whether a chat's attachments can go to the model it is about to ask, decided before anything is sent.

A new image for a model without vision (``Capabilities.vision`` for that model) is refused with a typed error
naming the model and the images, so the user hears it before a provider's 400 and keeps the draft. Images
from earlier turns of a conversation continued with such a model are replaced by a short note in the text
sent, so switching to a text-only model does not make the conversation unusable.
"""

from __future__ import annotations

from collections.abc import Sequence

from orchestration.messages import Attachment, DocumentPart, ImagePart, Message, UserMessage
from orchestration.providers.config import ProviderConfig

IMAGE_LEFT_OUT = "[The image {name} was left out: {model} does not accept images.]"


def images_refused(config: ProviderConfig, model: str, attachments: Sequence[Attachment]) -> list[str]:
    """The names of the images in ``attachments`` that ``model`` cannot take (empty when all is well)."""
    if config.capabilities.for_model(model).vision:
        return []
    return [a.name for a in attachments if isinstance(a, ImagePart)]


def images_as_notes(messages: list[Message], model: str) -> list[Message]:
    """``messages`` with every image in an earlier user turn replaced by a note, for a model without vision."""
    out: list[Message] = []
    for message in messages:
        if isinstance(message, UserMessage) and message.images:
            kept: list[Attachment] = [
                a if not isinstance(a, ImagePart) else DocumentPart(
                    name=a.name, media_type="text/plain", sha256=a.sha256, size=len(a.data),
                    text=IMAGE_LEFT_OUT.format(name=a.name, model=model))
                for a in message.attachments]
            message = message.model_copy(update={"attachments": kept})
        out.append(message)
    return out
