"""``parley usage``: spend and tokens per day, model or provider from the history, as a table, JSON or CSV."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date, timedelta

from app.cli.cli_common import EXIT_OK
from app.cli.cli_context import open_history, settings_from_args
from app.storage.errors import storage_errors
from app.usage.backfill import price_unpriced_runs
from app.usage.prices import price_source, pricers_from_settings
from app.usage.report import UsageRow, rows_csv, spend_since, usage_rows
from widgets.cost_text import money

DEFAULT_DAYS = 30  # --since defaults to this many days back, today included


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a date as YYYY-MM-DD, got {text!r}") from None


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser],
               parents: list[argparse.ArgumentParser]) -> None:
    usage = sub.add_parser("usage", parents=parents, help="what runs cost: spend and tokens per day, model or "
                                                         "provider",
                           description=f"Spend and tokens of saved runs. Prices: {price_source()} (bundled; never "
                                       "fetched), local providers 0, your own in settings usage.prices. A run "
                                       "whose model has no price counts as 'unknown', never as 0.")
    usage.add_argument("--since", type=_date, metavar="DATE",
                       help=f"first day, YYYY-MM-DD (default: the last {DEFAULT_DAYS} days)")
    usage.add_argument("--by", choices=["day", "model", "provider"], default="day", help="group by (default: day)")
    form = usage.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="print as JSON")
    form.add_argument("--csv", action="store_true", help="print as CSV")


def run_usage(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    since = args.since or date.today() - timedelta(days=DEFAULT_DAYS - 1)
    with open_history(args) as history, storage_errors(history.path, "read usage"):
        price_unpriced_runs(history, pricers_from_settings(settings.providers, settings.usage.prices))
        rows = usage_rows(history, since=since, by=args.by)
        month = spend_since(history, date.today().replace(day=1))
    total = _total(rows)
    budget = settings.usage.monthly_budget_usd
    if args.json:
        print(json.dumps({"since": since.isoformat(), "by": args.by, "prices": price_source(),
                          "rows": [r.as_dict() for r in rows], "total": total.as_dict(),
                          "month": {"cost_usd": month.cost_usd, "unpriced": month.unpriced,
                                    "budget_usd": budget}}, indent=2))
    elif args.csv:
        sys.stdout.write(rows_csv(rows, args.by))
    else:
        _print_table(rows, total, args.by)
        line = f"This month: {money(month.cost_usd)}"
        if budget is not None:
            line += f" of a {money(budget)} budget ({month.cost_usd / budget:.0%})"
        print(line + f". Prices: {price_source()}.")
    return EXIT_OK


def _total(rows: list[UsageRow]) -> UsageRow:
    return UsageRow("total", sum(r.runs for r in rows), sum(r.input_tokens for r in rows),
                    sum(r.output_tokens for r in rows), sum(r.reasoning_tokens for r in rows),
                    sum(r.cached_tokens for r in rows), sum(r.cost_usd for r in rows), sum(r.unpriced for r in rows))


def _print_table(rows: list[UsageRow], total: UsageRow, by: str) -> None:
    if not rows:
        print("No runs in this period.")
        return
    header = (by, "runs", "input", "output", "cached", "cost", "unknown")
    table = [header] + [(r.key, str(r.runs), f"{r.input_tokens:,}", f"{r.output_tokens:,}", f"{r.cached_tokens:,}",
                         money(r.cost_usd), str(r.unpriced) if r.unpriced else "") for r in [*rows, total]]
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    for n, line in enumerate(table):
        if n == len(table) - 1:
            print("  ".join("-" * w for w in widths))
        print("  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths,
                                                                                                      strict=True))))
    if total.unpriced:
        print(f"{total.unpriced} run(s) have no known price (a model the price table does not list): their cost is "
              "not in the totals. Set one with `usage.prices` in the settings or in Preferences.")
