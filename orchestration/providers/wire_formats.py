"""The wire formats Parley speaks, one registration each: kind, display name, adapter, model lister, preset.

A provider's ``kind`` names its wire format. Everything that depends on the format looks it up here by its
``WireKind``: ``adapter_for`` builds the adapter, ``list_models`` picks the model-list request, the settings
forms and the command line list the kinds, and a kind without a preset starts from ``preset``. A kind that is
not registered is ``UnsupportedKindError`` in every one of those places (none falls back to OpenAI).

Adapters and listers are named as ``module:attribute`` and imported when first used, so listing the kinds
does not load httpx or an adapter (start-up time).

To add a wire format: write its adapter (``HTTPChatAdapter`` with a ``WireReader``, orchestration/providers/),
its model lister in models.py, at least one preset in presets.py, and one ``WireFormat`` row below; add its
recordings to the conformance test (tests/orchestration/providers/test_recorded_streams.py).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from orchestration.engine import ChatAdapter
    from orchestration.providers.config import ProviderConfig

WireKind = Literal["openai", "anthropic", "gemini", "ollama", "openai-responses", "cohere"]

WIRE_KINDS: tuple[WireKind, ...] = get_args(WireKind)


class UnsupportedKindError(ValueError):
    """A provider's kind names no registered wire format."""


def _load(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class WireFormat:
    kind: WireKind
    display_name: str  # what the format is called where the user picks one
    adapter: str  # "module:Class" of its ChatAdapter, taking (config, client)
    models: str  # "module:function" listing a provider's models over a Transport
    preset: str  # the preset a provider of this kind starts from when none is named

    def adapter_class(self) -> Callable[..., ChatAdapter]:
        cls: Callable[..., ChatAdapter] = _load(self.adapter)
        return cls

    def model_lister(self) -> Callable[[Any], Awaitable[Any]]:
        lister: Callable[[Any], Awaitable[Any]] = _load(self.models)
        return lister


_MODELS = "orchestration.providers.models"

WIRE_FORMATS: dict[WireKind, WireFormat] = {f.kind: f for f in (
    WireFormat("openai", "OpenAI Chat Completions (and compatible servers)",
               "orchestration.providers.openai_chat:OpenAIChatAdapter", f"{_MODELS}:list_openai", "openai"),
    WireFormat("anthropic", "Anthropic Messages", "orchestration.providers.anthropic:AnthropicAdapter",
               f"{_MODELS}:list_anthropic", "anthropic"),
    WireFormat("gemini", "Google Gemini", "orchestration.providers.gemini:GeminiAdapter",
               f"{_MODELS}:list_gemini", "gemini"),
    WireFormat("ollama", "Ollama native API", "orchestration.providers.ollama_native:OllamaAdapter",
               f"{_MODELS}:list_ollama", "ollama-native"),
    WireFormat("openai-responses", "OpenAI Responses API",
               "orchestration.providers.openai_responses:OpenAIResponsesAdapter", f"{_MODELS}:list_openai",
               "openai-responses"),
    WireFormat("cohere", "Cohere v2 chat", "orchestration.providers.cohere:CohereAdapter",
               f"{_MODELS}:list_cohere", "cohere"),
)}


def wire_format(kind: str) -> WireFormat:
    """The registration of ``kind``; UnsupportedKindError (naming the kinds there are) for any other."""
    for known in WIRE_KINDS:
        if kind == known:
            return WIRE_FORMATS[known]
    raise UnsupportedKindError(f"provider kind {kind!r} is not supported; available: {', '.join(WIRE_KINDS)}")


def format_of(config: ProviderConfig) -> WireFormat:
    return wire_format(config.kind)
