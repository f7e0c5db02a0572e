"""provider_from_args: which preset, wire format, URL and key the shared provider flags produce."""

from __future__ import annotations

import argparse

import pytest

from app.cli.cli_common import UsageError
from app.cli.provider_args import add_provider_arguments, provider_from_args


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_provider_arguments(parser)
    parser.add_argument("--idle-timeout", type=float)
    return parser.parse_args(argv)


@pytest.mark.parametrize(("argv", "kind", "base_url", "auth"), [
    ((), "openai", "https://api.openai.com/v1", "bearer"),
    (("--base-url", "http://h:1/v1"), "openai", "http://h:1/v1", "bearer"),
    (("--kind", "anthropic"), "anthropic", "https://api.anthropic.com/v1", "x-api-key"),
    (("--kind", "gemini"), "gemini", "https://generativelanguage.googleapis.com/v1beta", "x-goog-api-key"),
    (("--kind", "ollama"), "ollama", "http://127.0.0.1:11434", "none"),
    (("--kind", "openai-responses"), "openai-responses", "https://api.openai.com/v1", "bearer"),
    (("--kind", "cohere", "--base-url", "http://h:2/"), "cohere", "http://h:2", "bearer"),
    (("--provider", "anthropic"), "anthropic", "https://api.anthropic.com/v1", "x-api-key"),
    (("--preset", "openrouter", "--kind", "openai-responses"), "openai-responses", "https://openrouter.ai/api/v1",
     "bearer"),
])
def test_kind_and_preset(argv: tuple[str, ...], kind: str, base_url: str, auth: str) -> None:
    config = provider_from_args(parse(*argv))
    assert (config.kind, config.base_url, config.auth) == (kind, base_url, auth)


def test_anthropic_version_header_key_and_idle_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "test-key-not-real")
    config = provider_from_args(parse("--kind", "anthropic", "--api-key-env", "MY_KEY", "--idle-timeout", "5"))
    assert config.auth_headers() == {"x-api-key": "test-key-not-real"}
    assert config.headers == {"anthropic-version": "2023-06-01"} and config.idle_timeout == 5
    assert config.display_name == "Anthropic"


def test_bad_input_is_a_usage_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UNSET_KEY_VAR", raising=False)
    with pytest.raises(UsageError, match="UNSET_KEY_VAR"):
        provider_from_args(parse("--api-key-env", "UNSET_KEY_VAR"))
    with pytest.raises(UsageError, match="must start with http"):
        provider_from_args(parse("--kind", "gemini", "--base-url", "localhost:1"))
