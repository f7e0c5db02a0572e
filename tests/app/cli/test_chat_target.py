"""Which provider, key and model ``parley chat`` picks from flags, settings and the keyring."""

from __future__ import annotations

import pytest

from app.cli.chat_command import api_key_from_env, provider_from_args
from app.cli.chat_target import resolve_target
from app.cli.cli_common import UsageError
from app.cli.entry import build_parser
from app.secrets import SecretStore, SecretStoreError
from app.settings import ProviderSettings, Settings

KEY = "test-key-not-real-target-1"


def target(settings: Settings, *argv: str, store: SecretStore | None = None):
    args = build_parser().parse_args(["chat", *argv, "hi"])
    return resolve_target(args, settings, store or SecretStore(), env_key=api_key_from_env(args.api_key_env),
                          one_off=lambda: provider_from_args(args))


@pytest.fixture
def settings():
    return Settings(providers=[
        ProviderSettings(id="local", base_url="http://127.0.0.1:8080/v1", default_model="qwen3",
                         capabilities={"parallel_tool_calls": True}, think_tags=False, headers={"X-Title": "P"},
                         reasoning_effort="low"),
        ProviderSettings(id="openai", preset="openai", base_url="https://api.openai.com/v1", default_model="gpt-x"),
    ], default_provider="local")


def test_default_provider_is_used_without_flags(settings, memory_keyring):
    chosen = target(settings)
    assert chosen.config.id == "local" and chosen.model == "qwen3" and chosen.api_key is None
    assert chosen.config.headers == {"X-Title": "P"} and chosen.reasoning_effort == "low"
    assert chosen.config.capabilities.parallel_tool_calls is True and chosen.config.capabilities.think_tags is False
    assert target(settings, "--model", "other").model == "other"


def test_provider_flag_uses_the_keyring_key(settings, memory_keyring):
    SecretStore().store("provider:openai", KEY)
    chosen = target(settings, "--provider", "openai")
    assert chosen.api_key == KEY and chosen.config.base_url == "https://api.openai.com/v1"
    assert chosen.config.capabilities.max_tokens_field == "max_completion_tokens"  # from the preset


def test_env_key_wins_over_the_keyring(settings, memory_keyring, monkeypatch):
    SecretStore().store("provider:openai", KEY)
    monkeypatch.setenv("OTHER_KEY", "test-key-not-real-env")
    assert target(settings, "--provider", "openai", "--api-key-env", "OTHER_KEY").api_key == "test-key-not-real-env"


def test_missing_key_for_a_hosted_provider(settings, no_keyring):
    with pytest.raises(SecretStoreError, match=r"provider openai needs an API key.*No OS keyring"):
        target(settings, "--provider", "openai")


def test_missing_key_with_a_working_keyring_says_how_to_store_it(settings, memory_keyring):
    with pytest.raises(UsageError, match="parley keys set openai"):
        target(settings, "--provider", "openai")


def test_one_off_flags_bypass_the_settings(settings, memory_keyring):
    chosen = target(settings, "--base-url", "http://127.0.0.1:9999/v1", "--model", "m")
    assert chosen.config.id == "custom" and chosen.config.base_url == "http://127.0.0.1:9999/v1"


@pytest.mark.parametrize(("argv", "message"), [
    (("--provider", "ghost"), "no provider 'ghost'"),
    (("--provider", "local", "--base-url", "http://x"), "cannot be combined"),
    (("--base-url", "http://127.0.0.1:1/v1"), "--model is required"),
])
def test_contradictions_and_gaps_are_usage_errors(settings, memory_keyring, argv, message):
    with pytest.raises(UsageError, match=message):
        target(settings, *argv)


def test_nothing_configured_explains_the_choices(memory_keyring):
    with pytest.raises(UsageError, match=r"no default provider is set.*parley providers add"):
        target(Settings())
    legacy = target(Settings(), "--model", "gpt-4o-mini")  # as before settings existed: the OpenAI preset
    assert legacy.config.base_url == "https://api.openai.com/v1"
    local = Settings(providers=[ProviderSettings(id="l", base_url="http://x/v1")], default_provider="l")
    with pytest.raises(UsageError, match="provider l has no default model"):
        target(local)
