"""The optional monthly budget (settings ``usage.monthly_budget_usd``): where this month's spend stands.

At ``WARN_AT`` (80 %) of the budget the window shows a banner; at 100 % a run against a paid provider asks
before it is sent (the window's dialog, a question on the terminal). Runs against a local provider never ask:
they cost nothing. The spend is what the history knows: runs whose price is unknown are not in it, and the
message says how many there are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from app.storage.history import History
from app.usage.report import spend_since
from widgets.cost_text import money

WARN_AT = 0.8

Level = Literal["none", "warn", "over"]


@dataclass(frozen=True)
class BudgetStatus:
    spent: float
    budget: float | None
    unpriced: int = 0  # runs this month whose cost is unknown

    @property
    def level(self) -> Level:
        if self.budget is None:
            return "none"
        if self.spent >= self.budget:
            return "over"
        return "warn" if self.spent >= WARN_AT * self.budget else "none"

    def asks_before(self, local: bool) -> bool:
        """Whether a new run must be confirmed: over budget, and the provider is not local."""
        return self.level == "over" and not local

    def message(self) -> str:
        if self.budget is None:
            return ""
        share = self.spent / self.budget
        unknown = (f" ({self.unpriced} run{'s' if self.unpriced != 1 else ''} with no known price not counted)"
                   if self.unpriced else "")
        if self.level == "over":
            return (f"This month's spend, {money(self.spent)}, has reached the monthly budget of "
                    f"{money(self.budget)}{unknown}. Runs against paid providers ask before they are sent; local "
                    "models do not.")
        return (f"This month's spend is {money(self.spent)}, {share:.0%} of the monthly budget of "
                f"{money(self.budget)}{unknown}.")


def budget_status(history: History | None, budget: float | None, today: date | None = None) -> BudgetStatus:
    if budget is None or history is None:
        return BudgetStatus(0.0, budget)
    spend = spend_since(history, (today or date.today()).replace(day=1))
    return BudgetStatus(spend.cost_usd, budget, spend.unpriced)
