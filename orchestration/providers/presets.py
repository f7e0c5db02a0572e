"""Known endpoints: wire format (kind), base URL, authentication, capabilities and quirks.

A preset is a starting point; every field can be overridden per provider in settings or on the CLI.
docs/providers.md has the same table for people.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from orchestration.providers.config import AuthStyle, Capabilities, ModelFamily, ProviderConfig

ANTHROPIC_VERSION = "2023-06-01"  # the anthropic-version header every Messages request carries
OPENAI_MAX_TOOLS = 128  # OpenAI refuses requests with more functions than this
OPENAI_REASONING_MODELS = ("o1", "o3", "o4", "gpt-5")
# OpenAI's reasoning models refuse a temperature ("Unsupported parameter"); the chat settings disable it for them.
_OPENAI_REASONING_FAMILY = ModelFamily(prefixes=OPENAI_REASONING_MODELS, overrides={"temperature": False},
                                       note="reasoning models: no temperature")
GEMINI_MAX_TOOLS = 128  # function declarations per Gemini request


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    base_url: str
    capabilities: Capabilities
    key_required: bool = True
    local: bool = False
    idle_timeout: float = 60.0
    kind: str = "openai"
    auth: AuthStyle = "bearer"
    headers: dict[str, str] = field(default_factory=dict)


_LOCAL = dict(key_required=False, local=True, idle_timeout=300.0)
# Model families whose vision differs from their provider's default (docs/providers.md "Per model family").
# Checked before the reasoning family (first match wins): o1-mini, o1-preview and o3-mini are reasoning models too.
OPENAI_TEXT_ONLY = (
    ModelFamily(prefixes=("o1-mini", "o1-preview", "o3-mini"), overrides={"vision": False, "temperature": False},
                note="no vision; reasoning models: no temperature"),
    ModelFamily(prefixes=("gpt-3.5", "gpt-4-0", "gpt-4-32k"), overrides={"vision": False}, note="no vision"),
)
OLLAMA_TEXT_ONLY = ModelFamily(prefixes=("gemma3:1b", "gemma3:270m"), overrides={"vision": False},
                               note="the small Gemma 3 models take no images")
OLLAMA_VISION = ModelFamily(prefixes=("llava", "bakllava", "gemma3", "llama3.2-vision", "llama4", "qwen2.5vl",
                                      "minicpm-v", "moondream", "granite3.2-vision"),
                            overrides={"vision": True}, note="vision models")

# llama-cpp-python's server (``python -m llama_cpp.server``), which the built-in engine runs too: what the real
# server refuses or ignores, found by tests/e2e/llama_server (docs/providers.md, "Quirks handled").
LLAMA_CPP_PYTHON = Capabilities(think_tags=True, parallel_tool_calls=False, reasoning_output=True,
                                null_assistant_content=False, required_tool_choice=False)
BUILTIN_URL = "http://127.0.0.1:0/v1"  # a placeholder: the engine's real port is chosen when it starts

PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("openai", "OpenAI", "https://api.openai.com/v1",
               Capabilities(reasoning_control="reasoning_effort", reasoning_models=OPENAI_REASONING_MODELS,
                            max_tokens_field="max_completion_tokens", max_tools=OPENAI_MAX_TOOLS, vision=True,
                            families=(*OPENAI_TEXT_ONLY, _OPENAI_REASONING_FAMILY))),
        Preset("openrouter", "OpenRouter", "https://openrouter.ai/api/v1",
               Capabilities(reasoning_control="openrouter", reasoning_output=True,
                            families=(ModelFamily(prefixes=("openai/gpt-4o", "openai/gpt-4.1", "openai/gpt-5",
                                                            "anthropic/claude", "google/gemini", "meta-llama/llama-4"),
                                                  overrides={"vision": True}, note="vision"),))),
        Preset("groq", "Groq", "https://api.groq.com/openai/v1",
               Capabilities(reasoning_control="reasoning_effort", reasoning_models=("openai/gpt-oss", "qwen"),
                            reasoning_output=True,
                            families=(ModelFamily(prefixes=("meta-llama/llama-4",), overrides={"vision": True},
                                                  note="vision"),))),
        Preset("deepseek", "DeepSeek", "https://api.deepseek.com/v1",
               Capabilities(parallel_tool_calls=False, echo_reasoning_content=True, reasoning_output=True)),
        Preset("xai", "xAI", "https://api.x.ai/v1",
               Capabilities(parallel_tool_calls_default=False, reasoning_control="reasoning_effort",
                            reasoning_models=("grok-3-mini",), reasoning_output=True,
                            families=(ModelFamily(prefixes=("grok-2-vision", "grok-4"), overrides={"vision": True},
                                                  note="vision"),))),
        Preset("mistral", "Mistral", "https://api.mistral.ai/v1",
               Capabilities(stream_usage=False, reasoning_output=True,
                            families=(ModelFamily(prefixes=("pixtral", "mistral-small-2503", "mistral-small-2506",
                                                            "mistral-small-latest", "mistral-medium-2505",
                                                            "mistral-medium-2508", "mistral-medium-latest"),
                                                  overrides={"vision": True}, note="vision"),))),
        Preset("together", "Together AI", "https://api.together.xyz/v1", Capabilities()),
        Preset("fireworks", "Fireworks AI", "https://api.fireworks.ai/inference/v1", Capabilities()),
        Preset("nvidia", "NVIDIA NIM", "https://integrate.api.nvidia.com/v1", Capabilities()),
        Preset("ollama", "Ollama (OpenAI-compatible /v1)", "http://127.0.0.1:11434/v1",
               Capabilities(think_tags=True, parallel_tool_calls=False, reasoning_output=True,
                            families=(OLLAMA_TEXT_ONLY, OLLAMA_VISION)), **_LOCAL),
        Preset("lmstudio", "LM Studio", "http://127.0.0.1:1234/v1",
               Capabilities(think_tags=True, parallel_tool_calls=False, reasoning_output=True), **_LOCAL),
        Preset("llamacpp", "llama.cpp server", "http://127.0.0.1:8080/v1",
               Capabilities(think_tags=True, parallel_tool_calls=False, reasoning_output=True), **_LOCAL),
        Preset("llama-cpp-python", "llama-cpp-python server", "http://127.0.0.1:8000/v1", LLAMA_CPP_PYTHON,
               **_LOCAL),
        Preset("builtin", "Built-in engine", BUILTIN_URL, LLAMA_CPP_PYTHON, **_LOCAL),
        Preset("vllm", "vLLM", "http://127.0.0.1:8000/v1", Capabilities(think_tags=True, reasoning_output=True),
               **_LOCAL),
        Preset("custom", "Custom OpenAI-compatible server", "", Capabilities(), key_required=False),
        Preset("anthropic", "Anthropic", "https://api.anthropic.com/v1",
               Capabilities(parallel_tool_calls_default=False, reasoning_output=True,
                            reasoning_control="anthropic_thinking", response_format=False, vision=True,
                            prompt_caching=True,
                            families=(ModelFamily(prefixes=("claude-3-haiku", "claude-3-opus", "claude-3-5"),
                                                  overrides={"reasoning_control": "none",
                                                             "reasoning_output": False},
                                                  note="no extended thinking"),)),
               kind="anthropic", auth="x-api-key", headers={"anthropic-version": ANTHROPIC_VERSION}),
        Preset("gemini", "Google Gemini", "https://generativelanguage.googleapis.com/v1beta",
               Capabilities(parallel_tool_calls=False, tool_ids=False, reasoning_output=True,
                            reasoning_control="gemini_thinking", reasoning_models=("gemini-2.5", "gemini-3"),
                            vision=True, max_tools=GEMINI_MAX_TOOLS,
                            families=(ModelFamily(prefixes=("gemini-1", "gemini-2.0"),
                                                  overrides={"reasoning_output": False},
                                                  note="no thinking"),)),
               kind="gemini", auth="x-goog-api-key"),
        Preset("ollama-native", "Ollama (native /api/chat)", "http://127.0.0.1:11434",
               Capabilities(parallel_tool_calls=False, tool_ids=False, reasoning_output=True,
                            reasoning_control="ollama_think", think_tags=True,
                            families=(OLLAMA_TEXT_ONLY, OLLAMA_VISION)),
               kind="ollama", auth="none", **_LOCAL),
        Preset("openai-responses", "OpenAI (Responses API)", "https://api.openai.com/v1",
               Capabilities(reasoning_control="reasoning_effort", reasoning_models=OPENAI_REASONING_MODELS,
                            reasoning_output=True, max_tools=OPENAI_MAX_TOOLS, vision=True, server_state=True,
                            families=(*OPENAI_TEXT_ONLY, _OPENAI_REASONING_FAMILY)),
               kind="openai-responses"),
        Preset("cohere", "Cohere", "https://api.cohere.com",
               Capabilities(parallel_tool_calls=False, reasoning_output=True, reasoning_control="cohere_thinking",
                            reasoning_models=("command-a-reasoning",),
                            families=(ModelFamily(prefixes=("command-a-vision", "c4ai-aya-vision"),
                                                  overrides={"vision": True}, note="vision"),)),
               kind="cohere"),
    )
}


KIND_PRESETS: dict[str, str] = {
    "openai": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "ollama": "ollama-native",
    "openai-responses": "openai-responses",
    "cohere": "cohere",
}
"""The preset a wire format starts from when none is named."""


def provider_from_preset(preset_name: str, *, provider_id: str | None = None, base_url: str | None = None,
                         api_key: str | None = None) -> ProviderConfig:
    """A provider config from a preset; raises KeyError for an unknown preset, ValueError for a missing URL."""
    preset = PRESETS[preset_name]
    url = (base_url or preset.base_url).rstrip("/")
    if not url:
        raise ValueError(f"the {preset.title} preset needs a base URL")
    return ProviderConfig(
        id=provider_id or preset.name,
        title=preset.title,
        kind=preset.kind,
        base_url=url,
        api_key=api_key,
        auth=preset.auth,
        headers=dict(preset.headers),
        capabilities=preset.capabilities,
        local=preset.local,
        idle_timeout=preset.idle_timeout,
    )
