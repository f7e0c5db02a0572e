"""Known OpenAI-compatible endpoints: base URL, capabilities and quirks.

A preset is a starting point; every field can be overridden per provider in settings or on the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass

from orchestration.providers.config import Capabilities, ProviderConfig


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    base_url: str
    capabilities: Capabilities
    key_required: bool = True
    local: bool = False
    idle_timeout: float = 60.0


_LOCAL = dict(key_required=False, local=True, idle_timeout=300.0)

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("openai", "OpenAI", "https://api.openai.com/v1",
               Capabilities(reasoning_control="reasoning_effort", reasoning_models=("o1", "o3", "o4", "gpt-5"),
                            max_tokens_field="max_completion_tokens")),
        Preset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1",
               Capabilities(reasoning_control="openrouter")),
        Preset("groq", "Groq", "https://api.groq.com/openai/v1",
               Capabilities(reasoning_control="reasoning_effort", reasoning_models=("openai/gpt-oss", "qwen"))),
        Preset("deepseek", "DeepSeek", "https://api.deepseek.com/v1",
               Capabilities(parallel_tool_calls=False, echo_reasoning_content=True)),
        Preset("xai", "xAI", "https://api.x.ai/v1",
               Capabilities(parallel_tool_calls=False, reasoning_control="reasoning_effort",
                            reasoning_models=("grok-3-mini",))),
        Preset("mistral", "Mistral", "https://api.mistral.ai/v1", Capabilities(stream_usage=False)),
        Preset("together", "Together AI", "https://api.together.xyz/v1", Capabilities()),
        Preset("fireworks", "Fireworks AI", "https://api.fireworks.ai/inference/v1", Capabilities()),
        Preset("nvidia", "NVIDIA NIM", "https://integrate.api.nvidia.com/v1", Capabilities()),
        Preset("ollama", "Ollama (OpenAI-compatible /v1)", "http://127.0.0.1:11434/v1",
               Capabilities(think_tags=True, parallel_tool_calls=False), **_LOCAL),
        Preset("lmstudio", "LM Studio", "http://127.0.0.1:1234/v1",
               Capabilities(think_tags=True, parallel_tool_calls=False), **_LOCAL),
        Preset("llamacpp", "llama.cpp server", "http://127.0.0.1:8080/v1",
               Capabilities(think_tags=True, parallel_tool_calls=False), **_LOCAL),
        Preset("vllm", "vLLM", "http://127.0.0.1:8000/v1", Capabilities(think_tags=True), **_LOCAL),
        Preset("custom", "Custom OpenAI-compatible server", "", Capabilities(), key_required=False),
    )
}


def provider_from_preset(preset_name: str, *, provider_id: str | None = None, base_url: str | None = None,
                         api_key: str | None = None) -> ProviderConfig:
    """A provider config from a preset; raises KeyError for an unknown preset, ValueError for a missing URL."""
    preset = PRESETS[preset_name]
    url = (base_url or preset.base_url).rstrip("/")
    if not url:
        raise ValueError(f"the {preset.title} preset needs a base URL")
    return ProviderConfig(
        id=provider_id or preset.name,
        kind="openai",
        base_url=url,
        api_key=api_key,
        capabilities=preset.capabilities,
        local=preset.local,
        idle_timeout=preset.idle_timeout,
    )
