"""The settings file's ``usage`` section: per-model prices that override the price table, and a monthly budget.

Kept apart from app/usage/prices.py so that reading the settings never imports the price table.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:  # reading the settings does not load the engine interface and the event models behind it
    from orchestration.engine import TokenUsage

MAX_PRICE_PER_MTOK = 10_000.0  # USD per million tokens; anything above is a typo, refused with the field named
MAX_BUDGET_USD = 1_000_000.0


class ModelPrice(BaseModel):
    """A user's price for one model, in US dollars per million tokens."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    input: float = Field(ge=0, le=MAX_PRICE_PER_MTOK, description="USD per million input tokens not read from "
                                                                  "or written to a cache")
    output: float = Field(ge=0, le=MAX_PRICE_PER_MTOK, description="USD per million output tokens (reasoning "
                                                                   "included)")
    cached_input: float | None = Field(None, ge=0, le=MAX_PRICE_PER_MTOK,
                                       description="USD per million cache-read tokens; null: the input price")
    cache_write: float | None = Field(None, ge=0, le=MAX_PRICE_PER_MTOK,
                                      description="USD per million cache-write tokens; null: the input price")

    def cost(self, usage: TokenUsage) -> float:
        cached = min(usage.cached_tokens, usage.input_tokens)
        written = min(usage.cache_write_tokens, usage.input_tokens - cached)
        plain = usage.input_tokens - cached - written
        total = (Decimal(plain) * _dec(self.input) + Decimal(usage.output_tokens) * _dec(self.output)
                 + Decimal(cached) * _dec(self.input if self.cached_input is None else self.cached_input)
                 + Decimal(written) * _dec(self.input if self.cache_write is None else self.cache_write))
        return float(total / 1_000_000)


def _dec(value: float) -> Decimal:
    return Decimal(str(value))


class UsageSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    prices: dict[str, ModelPrice] = Field(default_factory=dict, description="model name -> its price, over the "
                                                                          "price table's (or where it has none)")
    monthly_budget_usd: float | None = Field(None, gt=0, le=MAX_BUDGET_USD,
                                             description="warn at 80 %, ask before paid runs at 100 %; null: none")
