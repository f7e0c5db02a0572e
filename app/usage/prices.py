"""What one model call cost, in US dollars: from the bundled genai-prices data, a user's override, or 0 locally.

Prices come from the ``genai-prices`` package (pydantic/genai-prices), whose price table is bundled in the
wheel: Parley never calls its updater (``UpdatePrices``), so pricing makes no network request; a newer table
arrives with a newer package. A local provider (a local preset, or a custom server whose base URL is on this
machine) costs 0; a hosted preset pointed at this machine (a proxy) is still priced as the hosted service. A
model the table does not know, on a provider it does not know (NVIDIA, a remote custom server), has an unknown
price: ``None``, never 0. A per-model price in the settings (``usage.prices``) wins over the table.
"""

from __future__ import annotations

import functools
import ipaddress
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from app.usage.settings import ModelPrice

if TYPE_CHECKING:
    from app.settings import ProviderSettings
from orchestration.engine import TokenUsage
from orchestration.providers.config import ProviderConfig
from orchestration.providers.presets import PRESETS


@functools.cache
def price_source() -> str:
    """Where the prices come from, as ``genai-prices VERSION``. Read when first shown: importlib.metadata, which
    reads it, costs the idle window about 3.5 MB (email, csv, zipfile and their kin; issue 17, bench/RESULTS.md)."""
    from importlib.metadata import version

    return f"genai-prices {version('genai-prices')}"


# Parley's presets (and one-off kinds) -> genai-prices provider ids. Presets not listed (nvidia, custom) are
# priced only by a user's override.
GENAI_PROVIDERS: dict[str, str] = {
    "openai": "openai", "openai-responses": "openai", "anthropic": "anthropic", "gemini": "google",
    "groq": "groq", "deepseek": "deepseek", "xai": "x-ai", "mistral": "mistral", "together": "together",
    "fireworks": "fireworks", "cohere": "cohere", "openrouter": "openrouter",
}


def is_local_url(base_url: str) -> bool:
    """Whether ``base_url`` names this machine (loopback address or ``localhost``), without any DNS lookup."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Pricer:
    """Prices model calls for one provider: ``pricer(model, usage)`` is USD, or None when unknown.

    The provider is found in the price table by Parley's preset, else by its base URL (the table's own API
    address patterns: a "custom" provider pointed at api.openai.com is OpenAI); never guessed from the model.
    """

    def __init__(self, preset: str | None, base_url: str = "", *, local: bool = False,
                 overrides: dict[str, ModelPrice] | None = None) -> None:
        self.preset = preset
        self.base_url = base_url
        # a hosted preset pointed at this machine is a proxy to a paid service; only a custom server is free
        self.local = local or (preset in (None, "custom") and is_local_url(base_url))
        self.overrides = overrides or {}

    @classmethod
    def for_provider(cls, config: ProviderConfig, preset: str | None,
                     overrides: dict[str, ModelPrice] | None = None) -> Pricer:
        return cls(preset, config.base_url, local=config.local, overrides=overrides)

    def __call__(self, model: str, usage: TokenUsage, at: datetime | None = None) -> float | None:
        if self.local:
            return 0.0
        override = self.overrides.get(model)
        if override is not None:
            return override.cost(usage)
        return library_cost(GENAI_PROVIDERS.get(self.preset or ""), self.base_url, model, usage, at)


def warm_up() -> threading.Thread:
    """Import the price table on a background thread, so the first priced model call does not wait for it."""
    def load() -> None:
        from genai_prices import data_snapshot

        data_snapshot.get_snapshot()

    thread = threading.Thread(target=load, name="price table", daemon=True)
    thread.start()
    return thread


PricerLookup = Callable[[str], Pricer]
"""The pricer for a provider id as stored on a run."""


def pricers_from_settings(providers: Sequence[ProviderSettings], overrides: dict[str, ModelPrice]) -> PricerLookup:
    """Pricers by the provider name stored on a run: runs store the provider's display name, which is its
    preset's title ("OpenAI", "Ollama (OpenAI-compatible /v1)"); a provider in the settings is also found by
    its id. A custom server's runs, all titled alike, are unknown unless a price override names the model."""
    entries = {p.id: p for p in providers}
    titles = {p.title: p for p in PRESETS.values() if p.name != "custom"}

    def lookup(provider_id: str) -> Pricer:
        entry = entries.get(provider_id)
        if entry is not None:
            preset = PRESETS.get(entry.preset)
            return Pricer(entry.preset, entry.base_url, local=bool(preset and preset.local), overrides=overrides)
        preset = PRESETS.get(provider_id) or titles.get(provider_id)
        if preset is not None:
            return Pricer(preset.name, preset.base_url, local=preset.local, overrides=overrides)
        return Pricer(None, overrides=overrides)

    return lookup


def library_cost(provider: str | None, base_url: str, model: str, usage: TokenUsage,
                 at: datetime | None = None) -> float | None:
    """The genai-prices figure for ``usage`` of ``model`` at ``provider`` (else the provider whose API address
    ``base_url`` is), at time ``at``; None when the table knows neither the provider nor the model."""
    if provider is None and not base_url:
        return None
    import genai_prices  # the table takes about half a second to import: not for commands that price nothing

    counts = genai_prices.Usage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                                cache_read_tokens=usage.cached_tokens or None,
                                cache_write_tokens=usage.cache_write_tokens or None)
    where = {"provider_id": provider} if provider is not None else {"provider_api_url": base_url}
    try:
        calculation = genai_prices.calc_price(counts, model, **where,  # type: ignore[call-overload]  # where: one of the two
                                              genai_request_timestamp=at or datetime.now(tz=UTC))
    except (LookupError, ValueError):  # unknown model; counts the table cannot price
        return None
    return float(calculation.total_price)
