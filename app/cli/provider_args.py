"""A provider config from the command-line flags that ``parley chat`` and ``parley models`` share.

``--kind`` picks the wire format and, unless ``--preset`` names one, that format's preset (so its base URL,
authentication style and capabilities); ``--base-url`` overrides the URL; ``--api-key-env`` names the
environment variable holding the key.
"""

from __future__ import annotations

import argparse
import os

from app.cli.cli_common import UsageError
from orchestration.providers import ADAPTER_KINDS
from orchestration.providers.config import ProviderConfig
from orchestration.providers.presets import KIND_PRESETS, PRESETS, provider_from_preset


def add_provider_arguments(parser: argparse.ArgumentParser, *, preset_alias: bool = True) -> None:
    """``preset_alias`` also accepts ``--provider`` for ``--preset`` (where ``--provider`` means nothing else)."""
    parser.add_argument("--kind", choices=ADAPTER_KINDS, default=None,
                        help="wire format (default: the preset's, else openai, i.e. OpenAI-compatible)")
    names = ("--preset", "--provider") if preset_alias else ("--preset",)
    parser.add_argument(*names, dest="preset", choices=sorted(PRESETS), default=None, metavar="NAME",
                        help="a known provider (" + ", ".join(sorted(PRESETS)) + "): sets the base URL, "
                             "authentication and capabilities (default: the kind's own preset; for openai, custom "
                             "when --base-url is given)")
    parser.add_argument("--base-url", help="the API base URL, e.g. http://127.0.0.1:11434/v1")
    parser.add_argument("--api-key-env", metavar="VAR", help="read the API key from this environment variable")


def api_key_from_env(var: str | None) -> str | None:
    if not var:
        return None
    value = os.environ.get(var)
    if not value:
        raise UsageError(f"--api-key-env {var}: that environment variable is not set or empty")
    return value


def provider_from_args(args: argparse.Namespace) -> ProviderConfig:
    kind = args.kind
    preset = args.preset
    if preset is None:
        preset = ("custom" if args.base_url else "openai") if kind in (None, "openai") else KIND_PRESETS[kind]
    try:
        config = provider_from_preset(preset, base_url=args.base_url, api_key=api_key_from_env(args.api_key_env))
    except ValueError as exc:
        raise UsageError(f"{exc}; pass --base-url") from None
    if not config.base_url.startswith(("http://", "https://")):
        raise UsageError(f"--base-url must start with http:// or https://, got {config.base_url!r}")
    updates: dict[str, object] = {}
    if kind is not None and kind != config.kind:
        updates["kind"] = kind
    idle_timeout = getattr(args, "idle_timeout", None)
    if idle_timeout is not None:
        updates["idle_timeout"] = idle_timeout
    return config.model_copy(update=updates) if updates else config
