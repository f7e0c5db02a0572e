"""The settings file's schema: providers, search, loop limits, tools, UI, workspace and network policy.

Validated on load so that a hand-edited mistake is reported by field instead of surfacing later as a crash.
There is deliberately no field for API keys: keys live only in the OS keyring (app/secrets), and headers that
carry credentials are refused here.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from app.engine.settings import EngineSettings
from app.usage.settings import UsageSettings
from orchestration.limits import LoopLimits
from orchestration.providers.config import Capabilities
from orchestration.redaction import is_sensitive_header
from tools.files.settings import normalized_folder
from tools.mcp.settings import McpServerSettings

SETTINGS_VERSION = 1
PROVIDER_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"
SEARCH_BACKENDS = ("tavily", "brave", "exa", "searxng")
DEFAULT_SEARCH_RESULTS = 5
MAX_SEARCH_RESULTS = 20
DEFAULT_FONT_SIZE = 11
MIN_FONT_SIZE = 6
MAX_FONT_SIZE = 48
MAX_SYSTEM_PROMPT_CHARS = 100_000

SearchBackend = Literal["tavily", "brave", "exa", "searxng"]
ApprovalPolicy = Literal["ask", "allow", "deny"]
ReasoningEffort = Literal["minimal", "low", "medium", "high"]


def _check_http_url(value: str) -> str:
    value = value.strip().rstrip("/")
    if not value.startswith(("http://", "https://")):
        raise ValueError(f"must start with http:// or https://, got {value!r}")
    return value


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ProviderSettings(_Section):
    """One configured endpoint. Its key, if it needs one, is the keyring entry ``provider:<id>``."""

    id: str = Field(pattern=PROVIDER_ID_PATTERN, description="the name used on the CLI and in the keyring")
    kind: str = Field("openai", min_length=1, description="wire format (adapter), e.g. openai")
    preset: str = Field("custom", min_length=1, description="a known provider whose capabilities are the starting "
                        "point (orchestration/providers/presets.py)")
    base_url: str = Field(description="the API base URL")
    default_model: str | None = None
    headers: dict[str, str] = Field(default_factory=dict, description="extra non-secret headers sent on every "
                                    "request")
    capabilities: dict[str, Any] = Field(default_factory=dict, description="overrides of the preset's "
                                         "capabilities, by field name")
    think_tags: bool | None = Field(None, description="split <think> tags out of the text; null: the preset's")
    reasoning_effort: ReasoningEffort | None = None

    @field_validator("base_url")
    @classmethod
    def _url(cls, value: str) -> str:
        return _check_http_url(value)

    @field_validator("headers")
    @classmethod
    def _no_credential_headers(cls, value: dict[str, str]) -> dict[str, str]:
        secret = [name for name in value if is_sensitive_header(name)]
        if secret:
            raise ValueError(f"{', '.join(secret)} carries a credential and cannot be stored in settings; "
                             "store the key with `parley keys set` instead")
        return value

    @field_validator("capabilities")
    @classmethod
    def _known_capabilities(cls, value: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(value) - set(Capabilities.model_fields))
        if unknown:
            raise ValueError(f"unknown capabilities {', '.join(unknown)}; known: "
                             f"{', '.join(sorted(Capabilities.model_fields))}")
        Capabilities.model_validate(value)
        return value


class SearchSettings(_Section):
    backend: SearchBackend | None = Field(None, description="the web search backend; null: web search is off")
    result_count: int = Field(DEFAULT_SEARCH_RESULTS, ge=1, le=MAX_SEARCH_RESULTS)
    safe_search: Literal["off", "moderate", "strict"] = "moderate"
    base_urls: dict[SearchBackend, str] = Field(default_factory=dict, description="per-backend base URL "
                                                "(needed for self-hosted SearXNG)")

    @field_validator("base_urls")
    @classmethod
    def _urls(cls, value: dict[str, str]) -> dict[str, str]:
        return {backend: _check_http_url(url) for backend, url in value.items()}


class ToolSettings(_Section):
    enabled: dict[str, bool] = Field(default_factory=dict, description="tool name -> offered to the model; "
                                     "tools not listed are enabled")
    approval: dict[str, ApprovalPolicy] = Field(default_factory=dict, description="tool name -> ask, allow or "
                                                "deny; tools not listed use their own default")


class UiSettings(_Section):
    theme: Literal["system", "light", "dark"] = "system"
    font_size: int = Field(DEFAULT_FONT_SIZE, ge=MIN_FONT_SIZE, le=MAX_FONT_SIZE)


class ChatDefaults(_Section):
    """What a new chat starts with (a conversation then keeps its own: app/storage/chat_settings.py)."""

    system_prompt: str = Field("", max_length=MAX_SYSTEM_PROMPT_CHARS, description="the system prompt of new chats; "
                               "empty: none")


class Settings(_Section):
    version: Literal[1] = SETTINGS_VERSION
    providers: list[ProviderSettings] = Field(default_factory=list)
    default_provider: str | None = None
    search: SearchSettings = Field(default_factory=SearchSettings)
    limits: LoopLimits = Field(default_factory=LoopLimits)
    tools: ToolSettings = Field(default_factory=ToolSettings)
    ui: UiSettings = Field(default_factory=UiSettings)
    chat: ChatDefaults = Field(default_factory=ChatDefaults)
    workspace_folders: list[str] = Field(default_factory=list, description="folders file tools may read")
    workspace_writable: list[str] = Field(default_factory=list, description="those of workspace_folders the write "
                                          "tools (write_file, edit_file) may also change; the others are read-only")
    allow_local_addresses: bool = Field(False, description="let web tools fetch private and loopback addresses")
    mcp_servers: list[McpServerSettings] = Field(default_factory=list, description="MCP servers whose tools are "
                                                 "offered (docs/tools.md)")
    engine: EngineSettings = Field(default_factory=EngineSettings, description="the built-in llama.cpp engine "
                                   "(provider builtin): its limits and models (docs/providers.md)")
    usage: UsageSettings = Field(default_factory=UsageSettings, description="per-model prices and the monthly "
                                 "budget (docs/usage.md)")

    @field_validator("mcp_servers")
    @classmethod
    def _mcp_headers_not_secret(cls, value: list[McpServerSettings]) -> list[McpServerSettings]:
        for server in value:
            secret = [name for name in server.headers if is_sensitive_header(name)]
            if secret:
                raise ValueError(f"MCP server {server.name!r}: {', '.join(secret)} carries a credential and cannot "
                                 "be stored in settings; make it a secret header (`parley mcp add --secret-header`)")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Settings:
        ids = [p.id for p in self.providers]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"provider ids must be unique; repeated: {', '.join(duplicates)}")
        if self.default_provider is not None and self.default_provider not in ids:
            raise ValueError(f"default_provider {self.default_provider!r} is not one of the providers "
                             f"({', '.join(ids) or 'none configured'})")
        readable = {normalized_folder(f) for f in self.workspace_folders}
        stray = [f for f in self.workspace_writable if normalized_folder(f) not in readable]
        if stray:
            raise ValueError(f"workspace_writable may name only workspace folders; not in workspace_folders: "
                             f"{', '.join(stray)}")
        names = [m.name for m in self.mcp_servers]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"MCP server names must be unique; repeated: {', '.join(repeated)}")
        return self

    def mcp_server(self, name: str) -> McpServerSettings | None:
        return next((m for m in self.mcp_servers if m.name == name), None)

    def provider(self, provider_id: str) -> ProviderSettings | None:
        return next((p for p in self.providers if p.id == provider_id), None)
