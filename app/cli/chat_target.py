"""From ``parley chat``'s flags to the chat's settings for the run service, and its problems back into the
terminal's words (flags to pass, commands to run).

Which provider: ``--provider NAME`` (from the settings, key from the keyring); else ``--preset``/``--base-url``/
``--kind`` (a one-off provider, key from ``--api-key-env``); else the default provider in the settings; else,
with ``--model`` or ``--api-key-env``, the OpenAI preset as before. ``--api-key-env`` always wins over the
keyring. The resolution itself is the run service's (app/runs/run_service.py), shared with the window.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from app.cli.cli_common import UsageError
from app.engine.library import builtin_usable
from app.errors import EnvironmentProblem
from app.runs.chat_recording import NothingToRegenerateError
from app.runs.chat_turn import ChatSettings, ChatTarget
from app.runs.run_service import (
    EngineUnavailableError,
    MissingKeyError,
    MissingModelError,
    NoProviderError,
    RunService,
    RunSetupError,
    ToolChoiceError,
    ToolSelectionError,
    UnknownProviderError,
    UnsupportedSettingError,
)
from app.secrets import SecretStore, SecretStoreError
from app.settings import Settings
from orchestration.providers import UnsupportedKindError
from orchestration.providers.config import ProviderConfig

NOTHING_CONFIGURED = ("no provider given and no default provider is set: pass --provider NAME (`builtin` is the "
                      "built-in engine), or --base-url URL --model M, or add one with `parley providers add NAME "
                      "--base-url URL --model M`")


def _one_off(args: argparse.Namespace) -> bool:
    return bool(args.preset or args.base_url or args.kind)


def chat_settings(args: argparse.Namespace, settings: Settings, *, env_key: str | None,
                  one_off: Callable[[], ProviderConfig]) -> ChatSettings:
    """Raises UsageError for contradicting or missing flags.

    ``env_key`` is the key from ``--api-key-env``; ``one_off`` builds the provider from ``--preset``,
    ``--base-url`` and ``--kind``.
    """
    if args.provider and _one_off(args):
        raise UsageError("--provider cannot be combined with --preset, --base-url or --kind")
    one_off_config = None
    default = settings.provider(settings.default_provider) if settings.default_provider else None
    if not args.provider and (_one_off(args) or default is None):
        if not (_one_off(args) or args.model or args.api_key_env):
            if not settings.providers and builtin_usable(settings.engine):
                return _settings(args, settings, None, env_key)  # the run service picks the built-in engine
            raise UsageError(NOTHING_CONFIGURED)
        if not args.model:
            raise UsageError("--model is required with --preset, --base-url or --kind")
        one_off_config = one_off()
    return _settings(args, settings, one_off_config, env_key)


def _settings(args: argparse.Namespace, settings: Settings, one_off_config: ProviderConfig | None,
              env_key: str | None) -> ChatSettings:
    system = args.system
    if system is None and getattr(args, "conversation", None) is None:
        system = settings.chat.system_prompt or None  # a new chat starts with the default system prompt
    return ChatSettings(provider=args.provider, model=args.model, reasoning_effort=args.reasoning_effort,
                        one_off=one_off_config, api_key=env_key, idle_timeout=args.idle_timeout,
                        tools=args.tools or "all", tool_choice=args.tool_choice, stream=not args.no_stream,
                        max_output_tokens=args.max_output_tokens, temperature=getattr(args, "temperature", None),
                        max_iterations=args.max_iterations, call_timeout=args.call_timeout,
                        system=system, save=not args.no_save)


def cli_problem(problem: Exception, store: SecretStore) -> Exception:
    """A problem the run service found before the run, worded for the terminal."""
    if isinstance(problem, UnknownProviderError):
        known = ", ".join(problem.known) or "none yet (see `parley providers add`)"
        return UsageError(f"there is no provider {problem.provider!r}; configured: {known}")
    if isinstance(problem, MissingKeyError):
        verdict = store.status(probe=False)
        if not verdict.usable:
            return SecretStoreError(f"provider {problem.provider} needs an API key and none can be read. "
                                    f"{verdict.problem}")
        return UsageError(f"provider {problem.provider} needs an API key: store it with `parley keys set "
                          f"{problem.provider}` or pass --api-key-env VAR")
    if isinstance(problem, MissingModelError):
        return UsageError(f"--model is required: provider {problem.provider} has no default model")
    if isinstance(problem, NoProviderError):
        return UsageError(NOTHING_CONFIGURED)
    if isinstance(problem, ToolSelectionError):
        return UsageError(f"--tools: {problem}")
    if isinstance(problem, ToolChoiceError):
        return UsageError(f"--tool-choice {problem}")
    if isinstance(problem, UnsupportedSettingError):
        flag = {"reasoning_effort": "--reasoning-effort", "temperature": "--temperature",
                "max_output_tokens": "--max-output-tokens"}[problem.setting]
        return UsageError(f"{flag}: {problem.reason}")
    if isinstance(problem, UnsupportedKindError):
        return UsageError(f"--kind: {problem}")
    if isinstance(problem, EngineUnavailableError):
        return EnvironmentProblem(f"the built-in engine cannot answer: {problem}")
    if isinstance(problem, RunSetupError | NothingToRegenerateError):
        return UsageError(str(problem))
    return problem


def resolve_target(args: argparse.Namespace, settings: Settings, store: SecretStore, *, env_key: str | None,
                   one_off: Callable[[], ProviderConfig]) -> ChatTarget:
    """Raises UsageError for contradicting or missing flags, SecretStoreError when a needed key is unreadable."""
    chat = chat_settings(args, settings, env_key=env_key, one_off=one_off)
    try:
        return RunService(settings, store, recheck_keys=True).target(chat)  # a terminal has no UI thread to keep free
    except RunSetupError as problem:
        raise cli_problem(problem, store) from None
