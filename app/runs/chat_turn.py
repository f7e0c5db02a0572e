"""What one chat turn asks for (``ChatSettings``) and who answers it (``ChatTarget``), for both front ends.

Kept apart from the run service (app/runs/run_service.py), which resolves a ``ChatTarget`` from the settings and
runs the turn, so that the modules the service itself uses (app/runs/conversation_chat.py: what a sent message
keeps) and the front ends that only build ``ChatSettings`` can name these values without importing the service.
Plain dataclasses: importing this module loads neither pydantic nor the provider code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from orchestration.providers.config import ProviderConfig
    from orchestration.reasoning_effort import ReasoningEffort


@dataclass(frozen=True)
class ChatSettings:
    """What one chat turn asks for, whichever front end it comes from."""

    provider: str | None = None  # a provider id in the settings; None or "": the default provider
    model: str | None = None  # None: the provider's default model
    reasoning_effort: ReasoningEffort | None = None  # None: the provider's own setting
    one_off: ProviderConfig | None = None  # a provider not kept in the settings (``parley chat --base-url``)
    api_key: str | None = None  # a key that wins over the keyring (``--api-key-env``)
    idle_timeout: float | None = None  # overrides the provider's
    tools: str | tuple[str, ...] = "all"  # "all", "none" or names separated by commas; a tuple: the chat's own
    # pick (a conversation's kept tools), of which the ones no longer offered are left out
    tool_choice: str = "auto"  # "auto", "none", "required" or one of the selected tools
    stream: bool = True
    max_output_tokens: int | None = None
    temperature: float | None = None  # None: the provider's default
    max_iterations: int | None = None  # overrides the settings' loop limit
    call_timeout: float | None = None  # overrides the settings' limit on one model call, in seconds
    system: str | None = None  # None: a conversation's own; "": none
    save: bool = True


@dataclass(frozen=True)
class ChatTarget:
    """Who answers the turn: the provider's settings (its key included), the model and the effort resolved."""

    config: ProviderConfig
    model: str
    reasoning_effort: ReasoningEffort | None = None
    builtin: bool = False  # the built-in engine (app/engine), started when the run first needs it
    preset: str | None = None  # the preset the provider was made from (prices are looked up by it)

    @property
    def api_key(self) -> str | None:
        return None if self.config.api_key is None else self.config.api_key.get_secret_value()

