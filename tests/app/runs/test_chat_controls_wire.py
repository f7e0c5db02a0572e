"""Temperature and output-token limit from the chat's settings reach each of the six wire formats' documented
request fields, over real HTTP on loopback through the run service; settings a provider or model cannot take
are refused before anything is sent, never dropped."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.runs.chat_turn import ChatSettings
from app.runs.run_service import RunService, UnsupportedSettingError, run
from app.secrets import SecretStore
from app.settings import Settings
from orchestration.providers.chat_controls import TEMPERATURE_MAX, WIRE_FIELDS, chat_controls, wire_fields
from orchestration.providers.presets import KIND_PRESETS, provider_from_preset
from tests.support.loopback import LoopbackServer
from tests.support.memory_keyring import MemoryKeyring
from tests.support.wire_kinds import KIND_IDS, KINDS, WireKind


def service() -> RunService:
    return RunService(Settings(), SecretStore(MemoryKeyring()))


def field(body: dict[str, Any], dotted: str) -> Any:
    for part in dotted.split("."):
        body = body[part]
    return body


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_temperature_and_output_limit_reach_the_formats_documented_fields(loopback: LoopbackServer,
                                                                          kind: WireKind):
    loopback.always("POST", kind.path, kind.answer("Fine."))
    config = provider_from_preset(kind.preset, base_url=loopback.url + kind.base_path, api_key="test-key-not-real")
    chat = ChatSettings(one_off=config, model=kind.model, tools="none", temperature=0.25, max_output_tokens=321,
                        save=False)
    svc = service()
    result = asyncio.run(run(svc.begin(svc.plan("hi", chat), None), lambda _event: None))
    assert result.answer == "Fine."
    (request,) = loopback.requests
    temperature_field, tokens_field = wire_fields(config)
    assert field(request.json, temperature_field) == 0.25
    assert field(request.json, tokens_field) == 321


def test_every_wire_format_has_its_fields_and_temperature_range():
    assert set(WIRE_FIELDS) == set(TEMPERATURE_MAX) == set(KIND_PRESETS)
    assert wire_fields(provider_from_preset("openai")) == ("temperature", "max_completion_tokens")
    assert wire_fields(provider_from_preset("groq")) == ("temperature", "max_tokens")


def plan(preset: str, model: str, **settings: Any) -> None:
    config = provider_from_preset(preset, base_url="http://127.0.0.1:9/v1", api_key="test-key-not-real")
    service().plan("hi", ChatSettings(one_off=config, model=model, tools="none", save=False, **settings))


@pytest.mark.parametrize(("preset", "model", "settings", "reason"), [
    ("custom", "qwen3", {"reasoning_effort": "high"}, "no reasoning-effort setting"),
    ("openai", "gpt-4o", {"reasoning_effort": "high"}, "not one of OpenAI's reasoning models"),
    ("openai", "o3-mini", {"temperature": 0.5}, "takes no temperature"),
    ("openai-responses", "gpt-5", {"temperature": 0.5}, "takes no temperature"),
    ("anthropic", "claude-sonnet-4-5", {"temperature": 0.5, "reasoning_effort": "low"}, "extended thinking"),
    ("anthropic", "claude-sonnet-4-5", {"temperature": 1.5}, "takes 0 to 1, not 1.5"),
    ("cohere", "command-a-03-2025", {"temperature": 1.2}, "takes 0 to 1"),
])
def test_a_setting_the_provider_cannot_take_is_refused_with_the_reason(preset, model, settings, reason):
    with pytest.raises(UnsupportedSettingError, match=reason):
        plan(preset, model, **settings)


def test_settings_a_provider_takes_pass():
    plan("openai", "gpt-4o", temperature=2.0, max_output_tokens=10)
    plan("openai", "o3-mini", reasoning_effort="high", max_output_tokens=10)
    plan("anthropic", "claude-sonnet-4-5", temperature=1.0)
    plan("custom", "qwen3", temperature=0.1)


def test_controls_say_why_for_the_window():
    custom = provider_from_preset("custom", base_url="http://127.0.0.1:9/v1")
    controls = chat_controls(custom, "qwen3", "high")
    assert controls.reasoning_effort is not None and "Custom OpenAI-compatible server" in controls.reasoning_effort
    assert controls.temperature is None and controls.max_output_tokens is None
    anthropic = provider_from_preset("anthropic")
    assert chat_controls(anthropic, "claude-sonnet-4-5", "off").temperature is None
    assert chat_controls(anthropic, "claude-sonnet-4-5", "high").temperature is not None
    assert chat_controls(anthropic, "claude-3-5-haiku", "high").temperature is None  # no thinking there
    assert chat_controls(anthropic, "claude-3-5-haiku").temperature_max == 1.0
