"""Which per-chat controls a provider and model accept (temperature, output-token limit, reasoning effort) and,
when one is not accepted, why: the one place both the window's controls and the run service's checks read, so a
setting is either sent or refused, never silently dropped.

Each wire format's documented request field for the two sampling settings is listed here too (``WIRE_FIELDS``),
with the largest temperature the format documents (``TEMPERATURE_MAX``); the adapters write those fields.
"""

from __future__ import annotations

from dataclasses import dataclass

from orchestration.providers.config import ProviderConfig

TEMPERATURE_MAX: dict[str, float] = {
    "openai": 2.0,  # Chat Completions: 0 to 2
    "openai-responses": 2.0,  # Responses: 0 to 2
    "anthropic": 1.0,  # Messages: 0 to 1
    "gemini": 2.0,  # generationConfig.temperature: 0 to 2
    "ollama": 2.0,  # options.temperature: no documented maximum; 2 as the OpenAI-compatible servers take
    "cohere": 1.0,  # v2 chat: 0 to 1
}
"""The largest temperature each wire format accepts; the smallest is 0 everywhere."""

MAX_OUTPUT_TOKENS_LIMIT = 1_000_000
"""The largest output-token limit Parley sends (a model's own limit is usually far lower; the provider says so)."""

WIRE_FIELDS: dict[str, tuple[str, str]] = {
    "openai": ("temperature", "max_tokens"),  # or max_completion_tokens: Capabilities.max_tokens_field
    "openai-responses": ("temperature", "max_output_tokens"),
    "anthropic": ("temperature", "max_tokens"),
    "gemini": ("generationConfig.temperature", "generationConfig.maxOutputTokens"),
    "ollama": ("options.temperature", "options.num_predict"),
    "cohere": ("temperature", "max_tokens"),
}
"""(temperature, output-token limit): where each wire format takes them in the request body."""


def wire_fields(config: ProviderConfig) -> tuple[str, str] | None:
    """Where ``config``'s requests carry (temperature, output-token limit), dotted; None for an unknown format."""
    fields = WIRE_FIELDS.get(config.kind)
    if fields is not None and config.kind == "openai":
        return fields[0], config.capabilities.max_tokens_field
    return fields


@dataclass(frozen=True)
class ChatControls:
    """Per control: None when the provider and model accept it, else the reason it cannot be used."""

    temperature: str | None
    max_output_tokens: str | None
    reasoning_effort: str | None
    temperature_max: float = 2.0


def reasoning_effort_problem(config: ProviderConfig, model: str) -> str | None:
    caps = config.capabilities.for_model(model)
    name = config.display_name
    if caps.reasoning_control == "none":
        return f"{name} has no reasoning-effort setting Parley knows how to send"
    if not caps.supports_reasoning_control(model):
        return (f"{model} is not one of {name}'s reasoning models "
                f"({', '.join(m + '…' for m in caps.reasoning_models)})")
    return None


def temperature_problem(config: ProviderConfig, model: str, reasoning_effort: str | None) -> str | None:
    """``reasoning_effort``: what the run asks for (None or "off": no particular effort)."""
    if config.kind not in TEMPERATURE_MAX:
        return f"Parley does not know how {config.kind!r} requests take a temperature"
    caps = config.capabilities.for_model(model)
    if not caps.temperature:
        return f"{model} at {config.display_name} takes no temperature (reasoning models use their own)"
    thinking = reasoning_effort not in (None, "off") and caps.supports_reasoning_control(model)
    if thinking and caps.reasoning_control == "anthropic_thinking":
        return "Anthropic takes no temperature while extended thinking is on: set reasoning effort to Off first"
    return None


def chat_controls(config: ProviderConfig, model: str, reasoning_effort: str | None = None) -> ChatControls:
    tokens = None if config.kind in WIRE_FIELDS else \
        f"Parley does not know how {config.kind!r} requests take an output limit"
    return ChatControls(temperature=temperature_problem(config, model, reasoning_effort), max_output_tokens=tokens,
                        reasoning_effort=reasoning_effort_problem(config, model),
                        temperature_max=TEMPERATURE_MAX.get(config.kind, 2.0))
