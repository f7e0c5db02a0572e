"""Prices: unknown models are null (never 0), local providers and user overrides, and no network at all."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import genai_prices
import pytest

from app.settings import ProviderSettings
from app.usage.prices import Pricer, is_local_url, pricers_from_settings
from app.usage.settings import ModelPrice, UsageSettings
from orchestration.engine import TokenUsage
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.scripted import ScriptedModel, Step
from tools.registry import ToolRegistry

USAGE = TokenUsage(input_tokens=10_000, output_tokens=2_000, cached_tokens=4_000)
ROOT = Path(__file__).resolve().parents[3]


def library(model: str, provider: str, usage: TokenUsage = USAGE) -> float:
    return float(genai_prices.calc_price(genai_prices.Usage(
        input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
        cache_read_tokens=usage.cached_tokens or None, cache_write_tokens=usage.cache_write_tokens or None),
        model, provider_id=provider).total_price)


def test_a_known_model_costs_the_librarys_figure() -> None:
    assert Pricer("openai", "https://api.openai.com/v1")("gpt-4o-mini", USAGE) == library("gpt-4o-mini", "openai")


def test_an_unknown_model_or_provider_is_null_never_zero() -> None:
    assert Pricer("openai", "https://api.openai.com/v1")("no-such-model-1", USAGE) is None
    assert Pricer("nvidia", "https://integrate.api.nvidia.com/v1")("meta/llama-3.1-8b-instruct", USAGE) is None
    assert Pricer(None)("gpt-4o", USAGE) is None  # a provider nobody knows: not guessed from the model's name
    assert Pricer("custom", "https://llm.example.org/v1")("gpt-4o", USAGE) is None


def test_a_custom_provider_at_a_known_address_is_priced_as_that_provider() -> None:
    assert Pricer("custom", "https://api.openai.com/v1")("gpt-4o", USAGE) == library("gpt-4o", "openai")


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/v1", "http://localhost:11434", "http://[::1]:8000/v1"])
def test_local_servers_cost_zero(url: str) -> None:
    assert is_local_url(url)
    assert Pricer("custom", url)("gpt-4o", USAGE) == 0.0
    assert Pricer("ollama", "http://192.168.1.9:11434/v1", local=True)("llama3.1", USAGE) == 0.0


def test_a_hosted_preset_on_this_machine_is_a_proxy_and_still_costs() -> None:
    assert Pricer("openai", "http://127.0.0.1:4000/v1")("gpt-4o", USAGE) == library("gpt-4o", "openai")


def test_a_lan_or_named_host_is_not_local() -> None:
    assert not is_local_url("http://192.168.1.9:11434/v1")
    assert not is_local_url("https://localhost.example.com/v1")


def test_an_override_wins_and_fills_in() -> None:
    price = ModelPrice(input=2.0, output=8.0, cached_input=0.5, cache_write=2.5)
    usage = TokenUsage(input_tokens=1_000_000, output_tokens=500_000, cached_tokens=200_000,
                       cache_write_tokens=100_000)
    # 700k plain * 2 + 500k * 8 + 200k * 0.5 + 100k * 2.5 = 1.4 + 4 + 0.1 + 0.25
    assert Pricer("openai", overrides={"gpt-4o": price})("gpt-4o", usage) == pytest.approx(5.75)
    assert Pricer("nvidia", overrides={"my-model": price})("my-model", usage) == pytest.approx(5.75)
    assert ModelPrice(input=1, output=1).cost(usage) == pytest.approx(1.5)  # cache prices default to input


def test_bad_prices_are_refused_by_field() -> None:
    with pytest.raises(ValueError, match="input"):
        UsageSettings.model_validate({"prices": {"m": {"input": -1, "output": 1}}})
    with pytest.raises(ValueError, match="monthly_budget_usd"):
        UsageSettings.model_validate({"monthly_budget_usd": 0})


def test_pricers_from_settings_by_provider_id() -> None:
    providers = [ProviderSettings(id="work", preset="openai", base_url="https://api.openai.com/v1"),
                 ProviderSettings(id="box", preset="ollama", kind="openai", base_url="http://10.0.0.5:11434/v1")]
    lookup = pricers_from_settings(providers, {})
    assert lookup("work")("gpt-4o", USAGE) == library("gpt-4o", "openai")
    assert lookup("box")("llama3.1", USAGE) == 0.0  # a local preset, wherever it runs
    assert lookup("anthropic")("claude-sonnet-4-5", USAGE) == library("claude-sonnet-4-5", "anthropic")
    assert lookup("gone")("gpt-4o", USAGE) is None


def test_the_loop_puts_the_cost_on_usage_and_leaves_it_null_without_a_price() -> None:
    events: list = []
    model = ScriptedModel([Step(text="a", usage=USAGE), Step(text="b", usage=USAGE)])
    loop = RunLoop(model, ToolRegistry([]), events.append, price=Pricer("openai", "https://api.openai.com/v1"))
    import asyncio

    asyncio.run(loop.run(RunRequest(model="gpt-4o", messages=[UserMessage(content="x")])))
    (usage,) = [e for e in events if e.type == "usage"]
    assert usage.cost_usd == library("gpt-4o", "openai")
    assert '"cost_usd":' in usage.model_dump_json()
    events.clear()
    asyncio.run(loop.run(RunRequest(model="unlisted-model", messages=[UserMessage(content="x")])))
    (usage,) = [e for e in events if e.type == "usage"]
    assert usage.cost_usd is None and '"cost_usd":null' in usage.model_dump_json()


NO_NETWORK = """
import json, sys
seen = []
sys.addaudithook(lambda event, args: seen.append(event) if event.startswith(("socket.", "urllib.")) else None)
from app.usage.prices import Pricer
from orchestration.engine import TokenUsage
u = TokenUsage(input_tokens=1000, output_tokens=100, cached_tokens=10, cache_write_tokens=5)
costs = [Pricer(p, "")(m, u) for p, m in [("openai", "gpt-4o"), ("anthropic", "claude-sonnet-4-5"),
                                         ("gemini", "gemini-2.5-flash"), ("openai", "unknown-x"), (None, "gpt-4o")]]
costs.append(Pricer("custom", "https://api.openai.com/v1")("gpt-4o", u))
print(json.dumps({"seen": sorted(set(seen)), "costs": costs}))
"""


def test_pricing_makes_no_network_call() -> None:
    """Importing the library and pricing (by preset and by address) opens no socket and resolves no name."""
    out = subprocess.run([sys.executable, "-c", NO_NETWORK], capture_output=True, text=True, check=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    result = json.loads(out.stdout)
    assert result["seen"] == []
    assert result["costs"][0] > 0 and result["costs"][3] is None and result["costs"][5] > 0


def test_commands_that_price_nothing_do_not_load_the_price_table() -> None:
    """The table takes about half a second to import: `parley history`, `parley keys` and the rest skip it."""
    code = ("import sys, app.cli.entry, app.runs.run_service, app.settings; app.cli.entry.build_parser(); "
            "print('genai_prices' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=120)
    assert out.stdout.strip() == "False"


def test_the_built_in_engine_costs_nothing() -> None:
    from orchestration.providers.presets import provider_from_preset

    config = provider_from_preset("builtin")
    assert Pricer.for_provider(config, None)("smollm2-135m", USAGE) == 0.0
    assert pricers_from_settings([], {})(config.display_name)("smollm2-135m", USAGE) == 0.0  # runs saved before
