"""From a provider in the settings (plus its key from the keyring) to the ProviderConfig the adapters use.

The preset supplies the starting capabilities; the settings' capability overrides, ``think_tags``, extra
headers and kind are laid on top. The key is passed in, never read from or written to the settings. Errors and
the inspector name the provider by the user's id; the preset's title ("OpenAI") only when the id is the preset's
own name, since a provider "otterlab" made from the OpenAI preset may be any server (found in the user pass).
"""

from __future__ import annotations

from app.errors import EnvironmentProblem
from app.settings import ProviderSettings
from orchestration.providers.config import Capabilities, ProviderConfig
from orchestration.providers.presets import PRESETS, provider_from_preset


class ProviderSetupError(EnvironmentProblem):
    """A provider in the settings cannot be used as configured; the message names it and the field."""


def key_required(entry: ProviderSettings) -> bool:
    preset = PRESETS.get(entry.preset)
    return bool(preset and preset.key_required)


def provider_config(entry: ProviderSettings, api_key: str | None) -> ProviderConfig:
    if entry.preset not in PRESETS:
        raise ProviderSetupError(f"provider {entry.id}: unknown preset {entry.preset!r}; known presets: "
                                 f"{', '.join(sorted(PRESETS))}")
    base = provider_from_preset(entry.preset, provider_id=entry.id, base_url=entry.base_url, api_key=api_key)
    overrides = dict(entry.capabilities)
    if entry.think_tags is not None:
        overrides["think_tags"] = entry.think_tags
    if "vision" in overrides and "families" not in overrides:  # the user's word wins over the model families
        overrides["families"] = [family.model_copy(update={"overrides": {
            k: v for k, v in family.overrides.items() if k != "vision"}}) for family in base.capabilities.families]
    capabilities = Capabilities.model_validate({**base.capabilities.model_dump(), **overrides})
    title = base.title if entry.id == entry.preset else None  # display_name is then the user's id
    return base.model_copy(update={"kind": entry.kind, "headers": {**base.headers, **entry.headers},
                                   "capabilities": capabilities, "title": title})
