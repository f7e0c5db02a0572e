"""Which provider ``parley models`` asks: the same choice ``parley chat`` makes, so the names agree.

``--provider NAME`` is a provider from the settings (its base URL, headers and the key from the keyring); a
preset's name still works there for the one-off use it had before (``--provider openai``), unless a configured
provider has that id. ``--preset``/``--base-url``/``--kind`` make a one-off provider as before. With none of
them, the default provider in the settings is asked; with no default either, the command says what it can ask
instead (it used to ask OpenAI's public API, which needs a key, so a fresh machine got a network error); with
``--api-key-env`` alone, the OpenAI preset as before.
"""

from __future__ import annotations

import argparse

from app.cli.cli_common import UsageError
from app.cli.cli_context import secret_store
from app.cli.provider_args import api_key_from_env, provider_from_args
from app.runs.provider_setup import key_required, provider_config
from app.secrets.names import provider_entry
from app.settings import Settings
from orchestration.providers.config import ProviderConfig
from orchestration.providers.presets import PRESETS

NOTHING_TO_ASK = ("no provider is set up to ask: `parley models --local` lists the built-in engine's models and the "
                  "model servers running here, `parley models --preset NAME --api-key-env VAR` a known provider's, "
                  "and `parley providers add NAME --base-url URL` sets one up")


def _one_off(args: argparse.Namespace) -> bool:
    return bool(args.preset or args.base_url or args.kind)


def models_provider(args: argparse.Namespace, settings: Settings) -> ProviderConfig:
    """Raises UsageError for an unknown name, contradicting flags or a missing key."""
    name = args.provider
    if name:
        entry = settings.provider(name)
        if entry is None and name in PRESETS and not args.preset:  # the alias of --preset it was before
            args.preset = name
            return provider_from_args(args)
        if entry is not None and _one_off(args):
            raise UsageError("--provider cannot be combined with --preset, --base-url or --kind")
        if entry is None:
            known = ", ".join(p.id for p in settings.providers) or "none yet (see `parley providers add`)"
            raise UsageError(f"there is no provider {name!r}; configured: {known}; or name a preset with "
                             f"--preset NAME")
    elif not _one_off(args) and settings.default_provider:
        entry = settings.provider(settings.default_provider)
    elif not _one_off(args) and not args.api_key_env:
        raise UsageError(NOTHING_TO_ASK)
    else:
        entry = None
    if entry is None:
        return provider_from_args(args)
    key = api_key_from_env(args.api_key_env)
    if key is None:
        key = secret_store(args).lookup(provider_entry(entry.id))
    if key is None and key_required(entry):
        raise UsageError(f"provider {entry.id} needs an API key: store it with `parley keys set {entry.id}` or "
                         f"pass --api-key-env VAR")
    return provider_config(entry, key)
