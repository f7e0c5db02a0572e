"""The cost on each ``usage`` event, from recorded provider streams served over loopback HTTP, equals the price
library's own figure for the provider's raw usage (``genai_prices.extract_usage`` reads the wire usage itself,
so Parley's token mapping is checked too): OpenAI chat, OpenAI Responses with a reasoning model, Anthropic
with cache reads and writes, Gemini with thinking, and DeepSeek's reasoner."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import genai_prices
import pytest

from app.runs.run_service import run_loop
from app.usage.prices import Pricer
from orchestration.engine import ModelRequest
from orchestration.events import ModelCallFinished, RunEvent, Usage
from orchestration.loop import RunRequest
from orchestration.messages import UserMessage
from orchestration.providers import adapter_for
from orchestration.providers.presets import provider_from_preset
from tests.support import provider_fixtures as pf
from tests.support.adapter_runs import collect
from tests.support.loopback import LoopbackServer, Response
from tools.registry import ToolRegistry

pytestmark = pytest.mark.shared

# Anthropic's recordings have no cache traffic; this one gets cache reads and writes in its usage blocks.
ANTHROPIC_PLAIN = b'"cache_creation_input_tokens":0,"cache_read_input_tokens":0'
ANTHROPIC_CACHED = b'"cache_creation_input_tokens":1800,"cache_read_input_tokens":52000'


@dataclass(frozen=True)
class Case:
    key: str
    preset: str
    path: str
    library_provider: str
    model: str
    flavor: str = "default"
    edit: tuple[bytes, bytes] | None = None


CASES = {
    "openai-chat": Case("openai/chat-text-usage-gpt-4o.sse", "openai", "/v1/chat/completions", "openai", "gpt-4o",
                        "chat"),
    "openai-reasoning": Case("openai/responses-reasoning-summary-text-gpt-5.sse", "openai-responses",
                             "/v1/responses", "openai", "gpt-5", "responses"),
    "anthropic-cache": Case("anthropic/messages-text-claude-sonnet-4.sse", "anthropic", "/v1/messages",
                            "anthropic", "claude-sonnet-4-20250514", edit=(ANTHROPIC_PLAIN, ANTHROPIC_CACHED)),
    "gemini-thinking": Case("gemini/sse-thought-text-gemini-2.5-pro.sse", "gemini", "", "google", "gemini-2.5-pro"),
    "deepseek-reasoner": Case("deepseek/chat-reasoning-content-deepseek-reasoner.sse", "deepseek",
                              "/v1/chat/completions", "deepseek", "deepseek-reasoner", "chat"),
}


def body(case: Case) -> bytes:
    data = pf.body(case.key)
    if case.edit is not None:
        assert case.edit[0] in data
        data = data.replace(case.edit[0], case.edit[1])  # message_start and message_delta alike
    return data


def serve(loopback: LoopbackServer, case: Case, model: str) -> None:
    path = case.path or f"/v1beta/models/{model}:streamGenerateContent"
    loopback.add("POST", path, Response(headers={"Content-Type": pf.content_type(case.key)},
                                        chunks=list(pf.split_events(body(case)))))


def base_url(loopback: LoopbackServer, case: Case) -> str:
    return loopback.url + ("/v1beta" if case.preset == "gemini" else "/v1")


async def raw_usage(loopback: LoopbackServer, case: Case, model: str) -> dict[str, Any]:
    serve(loopback, case, model)
    config = provider_from_preset(case.preset, base_url=base_url(loopback, case), api_key="test-key-not-real")
    outcome = await collect(adapter_for(config), ModelRequest(model=model, messages=[UserMessage(content="hi")]))
    assert outcome.complete.usage is not None
    return outcome.complete.usage.raw


async def run_events(loopback: LoopbackServer, case: Case, model: str) -> list[RunEvent]:
    serve(loopback, case, model)
    config = provider_from_preset(case.preset, base_url=base_url(loopback, case), api_key="test-key-not-real")
    # priced as the real provider: loopback is local, so the preset's own address is what is looked up
    pricer = Pricer(case.preset, provider_from_preset(case.preset).base_url)
    events: list[RunEvent] = []
    await run_loop(adapter_for(config), ToolRegistry([]), RunRequest(model=model, messages=[
        UserMessage(content="hi")], stream=True), events.append, price=pricer)
    return events


@pytest.mark.parametrize("name", list(CASES))
async def test_cost_equals_the_price_librarys_figure(name: str, loopback: LoopbackServer) -> None:
    pf.require()
    case = CASES[name]
    model = case.model
    raw = await raw_usage(loopback, case, model)
    root = "usageMetadata" if case.library_provider == "google" else "usage"
    model_key = "modelVersion" if case.library_provider == "google" else "model"
    extracted = genai_prices.extract_usage({root: raw, model_key: model}, provider_id=case.library_provider,
                                           api_flavor=case.flavor)
    expected = float(extracted.calc_price().total_price)
    assert expected > 0

    events = await run_events(loopback, case, model)
    (usage,) = [e for e in events if isinstance(e, Usage)]
    (finished,) = [e for e in events if isinstance(e, ModelCallFinished)]
    assert usage.cost_usd == pytest.approx(expected, rel=1e-12)
    assert finished.cost_usd == usage.cost_usd
    if name == "anthropic-cache":
        assert (usage.cached_tokens, usage.cache_write_tokens) == (52000, 1800)
        # cache writes cost more than plain input and cache reads far less: both matter to the figure
        assert extracted.usage.cache_write_tokens == 1800 and extracted.usage.cache_read_tokens == 52000
    if name in ("openai-reasoning", "deepseek-reasoner", "gemini-thinking"):
        assert usage.reasoning_tokens > 0  # billed as output, which already includes them
