"""How money and token counts are written for people (the CLI, the window's footers, status bar and dialog)."""

from __future__ import annotations

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
