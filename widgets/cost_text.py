"""How money and token counts are written for people: the answers' footers, the status bar, the usage dialog
and ``parley usage``. Pure Python (no Qt), so the CLI can use it too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pydantic stays off the window's first frame (the chat view imports this module)
    from orchestration.events import Usage

UNKNOWN = "unknown"


def money(usd: float | None) -> str:
    """``$0.0123`` below a dollar (4 decimals, so a cheap call is not ``$0.00``), ``$12.34`` above; None is
    ``unknown``."""
    if usd is None:
        return UNKNOWN
    if usd == 0:
        return "$0.00"
    if abs(usd) < 0.0001:
        return "<$0.0001"
    return f"${usd:,.4f}" if abs(usd) < 1 else f"${usd:,.2f}"


def tokens(count: int | None) -> str:
    if count is None:
        return UNKNOWN
    return f"{count / 1000:.1f}k" if count >= 10_000 else f"{count:,}"


@dataclass
class AnswerUsage:
    """Tokens and cost of one answer (one run), summed over its model calls' ``usage`` events."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    cost_usd: float | None = 0.0  # None once any call's price is unknown
    calls: int = 0

    def add(self, event: Usage) -> None:
        self.calls += 1
        self.input_tokens += event.input_tokens
        self.output_tokens += event.output_tokens
        self.cached_tokens += event.cached_tokens
        self.reasoning_tokens += event.reasoning_tokens
        cost = event.cost_usd
        self.cost_usd = None if cost is None or self.cost_usd is None else self.cost_usd + cost

    def footer(self) -> str:
        """``1,234 in · 56 out · $0.0012``; empty when no call reported usage."""
        if not self.calls:
            return ""
        return answer_footer(self.input_tokens, self.output_tokens, self.cost_usd)

    def detail(self) -> str:
        """The footer's tooltip: every count and what the cost means."""
        if not self.calls:
            return ""
        return answer_detail(self.input_tokens, self.output_tokens, self.cached_tokens, self.reasoning_tokens,
                             self.cost_usd, self.calls)


def answer_footer(input_tokens: int | None, output_tokens: int | None, cost_usd: float | None) -> str:
    return f"{tokens(input_tokens)} in · {tokens(output_tokens)} out · {money(cost_usd)}"


def answer_detail(input_tokens: int | None, output_tokens: int | None, cached_tokens: int | None,
                  reasoning_tokens: int | None, cost_usd: float | None, calls: int | None = None) -> str:
    lines = [f"Input tokens: {tokens(input_tokens)} (read from cache: {tokens(cached_tokens)})",
             f"Output tokens: {tokens(output_tokens)} (reasoning: {tokens(reasoning_tokens)})"]
    if calls:
        lines.append(f"Model calls: {calls}")
    lines.append(f"Cost: {money(cost_usd)}" + (" (no price known for this model)" if cost_usd is None else ""))
    return "\n".join(lines)


def spend_text(today: float, month: float, budget: float | None, *, chat: float | None = None,
               chat_unknown: bool = False) -> str:
    """The status bar's spend: ``Chat $0.05 · Today $0.12 · Month $3.40 of $20.00``."""
    parts = []
    if chat is not None:
        parts.append(f"Chat {money(chat)}{'+' if chat_unknown else ''}")
    parts.append(f"Today {money(today)}")
    month_text = f"Month {money(month)}"
    if budget is not None:
        month_text += f" of {money(budget)}"
    parts.append(month_text)
    return " · ".join(parts)
