"""A provider: where requests go, how they authenticate, and what the endpoint can do.

This is separate from the wire format (the adapter): Ollama's /v1, LM Studio, OpenRouter and many others are
different providers that share the OpenAI-compatible adapter.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

AuthStyle = Literal["bearer", "x-api-key", "x-goog-api-key", "none"]
ReasoningControl = Literal["none", "reasoning_effort", "openrouter", "anthropic_thinking", "gemini_thinking",
                           "ollama_think", "cohere_thinking"]


class ModelFamily(BaseModel):
    """Capabilities that differ for the models whose names start with one of ``prefixes``."""

    model_config = ConfigDict(frozen=True)

    prefixes: tuple[str, ...]
    overrides: dict[str, Any] = Field(default_factory=dict, description="Capabilities fields and their values")
    note: str = ""


class Capabilities(BaseModel):
    """What a provider accepts. The loop and the adapters read this instead of guessing from names."""

    model_config = ConfigDict(frozen=True)

    streaming: bool = True
    tools: bool = True
    parallel_tool_calls: bool = Field(True, description="accepts a switch that turns parallel tool calls off")
    parallel_tool_calls_default: bool | None = Field(
        None, description="what the loop asks for when the run does not say; None leaves it to the provider")
    tool_ids: bool = Field(True, description="tool calls arrive with ids (else they are assigned)")
    reasoning_output: bool = Field(False, description="can stream reasoning for the reasoning pane")
    stream_usage: bool = Field(True, description="accepts stream_options.include_usage")
    reasoning_control: ReasoningControl = "none"
    reasoning_models: tuple[str, ...] = Field(
        (), description="model-name prefixes that accept reasoning controls; empty means every model"
    )
    response_format: bool = Field(True, description="accepts a JSON output format (response_format or its kin)")
    vision: bool = Field(False, description="accepts images in user messages")
    temperature: bool = Field(True, description="accepts a sampling temperature (OpenAI's reasoning models do not)")
    max_tokens_field: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    echo_reasoning_content: bool = Field(False, description="send reasoning_content back on assistant turns")
    required_tool_choice: bool = Field(
        True, description="honours tool_choice: required (else a lone tool is forced by name instead)")
    null_assistant_content: bool = Field(
        True, description="accepts content: null on an assistant turn that only calls tools (else \"\" is sent)")
    max_tools: int | None = Field(None, ge=1, description="most tools one request may carry; None: no limit")
    think_tags: bool = Field(False, description="split <think>...</think> out of the text")
    prompt_caching: bool = Field(False, description="mark the system prompt and tools cacheable (Anthropic)")
    server_state: bool = Field(False, description="keeps responses, so previous_response_id can replace history")
    families: tuple[ModelFamily, ...] = Field((), description="per model family differences; first match wins")

    def supports_reasoning_control(self, model: str) -> bool:
        if self.reasoning_control == "none":
            return False
        return not self.reasoning_models or model.startswith(self.reasoning_models)

    def for_model(self, model: str) -> Capabilities:
        """These capabilities with the first matching model family's overrides applied."""
        for family in self.families:
            if model.startswith(family.prefixes):
                return self.model_copy(update=family.overrides)
        return self


class ProviderConfig(BaseModel):
    """A configured endpoint. The API key is held only in memory (it comes from the keyring or the env)."""

    id: str
    title: str | None = Field(None, description="the name users know it by, used in messages")
    kind: str = "openai"
    base_url: str
    api_key: SecretStr | None = None
    auth: AuthStyle = "bearer"
    headers: dict[str, str] = Field(default_factory=dict)
    capabilities: Capabilities = Field(default_factory=Capabilities)
    connect_timeout: float = Field(10.0, gt=0, description="seconds to open a connection")
    idle_timeout: float = Field(60.0, gt=0, description="seconds without a byte before a stream is an error")
    max_attempts: int = Field(3, ge=1, le=10, description="tries for a request that fails before any output")
    retry_cap: float = Field(20.0, ge=0, description="longest wait between tries, seconds")
    local: bool = False

    @property
    def display_name(self) -> str:
        return self.title or self.id

    def auth_headers(self) -> dict[str, str]:
        if self.api_key is None or self.auth == "none":
            return {}
        key = self.api_key.get_secret_value()
        if self.auth == "bearer":
            return {"Authorization": f"Bearer {key}"}
        return {self.auth: key}
