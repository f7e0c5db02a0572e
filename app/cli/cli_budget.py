"""The monthly budget in ``parley chat``: past 80 % a warning on stderr; at 100 % a run against a paid
provider is sent only after a "y" on the terminal, or with ``--over-budget``; without a terminal it is refused
(exit 1) before anything is saved or sent. Local providers are never held back."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.cli.cli_approval import is_interactive
from app.cli.cli_context import open_history, warn
from app.errors import EnvironmentProblem
from app.settings import Settings
from app.storage.errors import storage_errors

if TYPE_CHECKING:  # the spend report and the back-fill load only when a budget is set (start-up: parley chat)
    from app.usage.prices import Pricer


class OverBudgetError(EnvironmentProblem):
    """The month's budget is spent and the run was not confirmed; nothing was saved or sent."""


def check_budget(args: argparse.Namespace, settings: Settings, pricer: Pricer | None, *,
                 interactive: Callable[[], bool] = is_interactive,
                 read_line: Callable[[], str] = lambda: sys.stdin.readline()) -> None:
    """Returns when the run may go; raises OverBudgetError when it may not."""
    budget = settings.usage.monthly_budget_usd
    if budget is None or (pricer is not None and pricer.local):
        return
    from app.usage.backfill import price_unpriced_runs
    from app.usage.budget import budget_status
    from app.usage.prices import pricers_from_settings

    with open_history(args) as history, storage_errors(history.path, "read this month's spend"):
        price_unpriced_runs(history, pricers_from_settings(settings.providers, settings.usage.prices))
        status = budget_status(history, budget)
    if status.level == "warn":
        warn(status.message())
    if status.level != "over" or getattr(args, "over_budget", False):
        return
    if not interactive():
        raise OverBudgetError(f"{status.message()} Not sent; pass --over-budget to send it anyway.")
    print(f"parley: {status.message()}", file=sys.stderr)
    print("Send anyway? [y/N] ", end="", file=sys.stderr, flush=True)
    if read_line().strip().lower() not in ("y", "yes"):
        raise OverBudgetError("Not sent: the monthly budget is spent.")
