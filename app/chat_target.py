"""Which provider, key and model ``parley chat`` uses.

In order: ``--provider NAME`` (from the settings, key from the keyring); else ``--preset``/``--base-url``/``--kind``
(a one-off provider, key from ``--api-key-env``); else the default provider in the settings; else, with
``--model`` or ``--api-key-env``, the OpenAI preset as before. ``--api-key-env`` always wins over the keyring.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from app.cli_common import UsageError
from app.provider_setup import key_required, provider_config
from app.secrets import SecretStore, SecretStoreError, provider_entry
from app.settings import ProviderSettings, Settings
from orchestration.providers.config import ProviderConfig


@dataclass(frozen=True)
class ChatTarget:
    config: ProviderConfig
    model: str
    reasoning_effort: str | None = None

    @property
    def api_key(self) -> str | None:
        return None if self.config.api_key is None else self.config.api_key.get_secret_value()


def _one_off(args: argparse.Namespace) -> bool:
    return bool(args.preset or args.base_url or args.kind)


def _settings_target(args: argparse.Namespace, entry: ProviderSettings, store: SecretStore,
                     env_key: str | None) -> ChatTarget:
    key = env_key if env_key is not None else store.lookup(provider_entry(entry.id))
    if key is None and key_required(entry):
        verdict = store.status(probe=False)
        if not verdict.usable:
            raise SecretStoreError(f"provider {entry.id} needs an API key and none can be read. {verdict.problem}")
        raise UsageError(f"provider {entry.id} needs an API key: store it with `parley keys set {entry.id}` or "
                         "pass --api-key-env VAR")
    model = args.model or entry.default_model
    if not model:
        raise UsageError(f"--model is required: provider {entry.id} has no default model")
    return ChatTarget(provider_config(entry, key), model, args.reasoning_effort or entry.reasoning_effort)


def resolve_target(args: argparse.Namespace, settings: Settings, store: SecretStore, *, env_key: str | None,
                   one_off: Callable[[], ProviderConfig]) -> ChatTarget:
    """Raises UsageError for contradicting or missing flags, SecretStoreError when a needed key is unreadable.

    ``env_key`` is the key from ``--api-key-env``; ``one_off`` builds the provider from ``--preset``,
    ``--base-url`` and ``--kind``.
    """
    if args.provider:
        if _one_off(args):
            raise UsageError("--provider cannot be combined with --preset, --base-url or --kind")
        entry = settings.provider(args.provider)
        if entry is None:
            known = ", ".join(p.id for p in settings.providers) or "none yet (see `parley providers add`)"
            raise UsageError(f"there is no provider {args.provider!r}; configured: {known}")
        return _settings_target(args, entry, store, env_key)
    default = settings.provider(settings.default_provider) if settings.default_provider else None
    if not _one_off(args) and default is not None:
        return _settings_target(args, default, store, env_key)
    if not (_one_off(args) or args.model or args.api_key_env):
        raise UsageError("no provider given and no default provider is set: pass --provider NAME, or "
                         "--base-url URL --model M, or add one with `parley providers add NAME --base-url URL "
                         "--model M`")
    if not args.model:
        raise UsageError("--model is required with --preset, --base-url or --kind")
    return ChatTarget(one_off(), args.model, args.reasoning_effort)
