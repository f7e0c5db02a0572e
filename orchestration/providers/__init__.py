"""Providers (where requests go, with what credentials) and wire-format adapters (what is sent).

``adapter_for`` picks the adapter for a provider's kind; several providers share one adapter.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the adapters (and httpx) load when one is asked for, not when the kinds are listed
    import httpx

    from orchestration.engine import ChatAdapter
    from orchestration.providers.config import ProviderConfig

ADAPTER_KINDS = ("openai", "anthropic", "gemini", "ollama", "openai-responses", "cohere")


class UnsupportedKindError(ValueError):
    pass


def adapter_for(config: ProviderConfig, client: httpx.AsyncClient | None = None) -> ChatAdapter:
    if config.kind == "openai":
        from orchestration.providers.openai_chat import OpenAIChatAdapter

        return OpenAIChatAdapter(config, client)
    if config.kind == "anthropic":
        from orchestration.providers.anthropic import AnthropicAdapter

        return AnthropicAdapter(config, client)
    if config.kind == "gemini":
        from orchestration.providers.gemini import GeminiAdapter

        return GeminiAdapter(config, client)
    if config.kind == "ollama":
        from orchestration.providers.ollama_native import OllamaAdapter

        return OllamaAdapter(config, client)
    if config.kind == "openai-responses":
        from orchestration.providers.openai_responses import OpenAIResponsesAdapter

        return OpenAIResponsesAdapter(config, client)
    if config.kind == "cohere":
        from orchestration.providers.cohere import CohereAdapter

        return CohereAdapter(config, client)
    raise UnsupportedKindError(
        f"provider kind {config.kind!r} is not supported; available: {', '.join(ADAPTER_KINDS)}")
