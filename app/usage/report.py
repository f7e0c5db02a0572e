"""Spend and tokens from the history: per day, model or provider since a date; today's and this month's spend.

Reads the ``runs`` table only (its ``cost_usd`` is the sum of the run's model calls). A run whose cost is
unknown adds its tokens but not a cost, and is counted in ``unpriced`` so a total is never shown as complete
when it is not. Days and months are the machine's local calendar. A damaged provider or model name (a BLOB) is
grouped and shown as ``[damaged value] …`` and counted in the damaged-values note (app/usage/damaged_names.py).
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass, fields
from datetime import date, datetime, time, timedelta
from typing import Literal

from app.storage.history import History
from app.usage.damaged_names import note_damaged_names, shown_name

GroupBy = Literal["day", "model", "provider"]


@dataclass(frozen=True)
class UsageRow:
    key: str  # the day (YYYY-MM-DD), model or provider
    runs: int
    input_tokens: int
    output_tokens: int
    reasoning_tokens: int
    cached_tokens: int
    cost_usd: float  # the runs whose cost is known
    unpriced: int  # runs whose cost is unknown (no price for the model, or usage not reported)

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def start_of_day(day: date) -> int:
    """Epoch milliseconds of local midnight starting ``day``."""
    return int(datetime.combine(day, time()).astimezone().timestamp() * 1000)


_KEYS: dict[GroupBy, str] = {
    "day": "date(started_at / 1000, 'unixepoch', 'localtime')",
    "model": "coalesce(model, '(unknown)')",
    "provider": "coalesce(provider, '(unknown)')",
}


def usage_rows(history: History, *, since: date, by: GroupBy, until: date | None = None) -> list[UsageRow]:
    """One row per day, model or provider with runs started on or after ``since`` (and before ``until``);
    days ascending, models and providers by cost, highest first."""
    key = _KEYS[by]
    end = start_of_day(until) if until is not None else 2**62
    order = "key" if by == "day" else "cost DESC, key"
    where, params = "started_at >= ? AND started_at < ? AND status != 'running'", [start_of_day(since), end]
    rows = history.db.execute(
        f"SELECT {key} AS key, count(*), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), "
        "coalesce(sum(reasoning_tokens), 0), coalesce(sum(cached_tokens), 0), coalesce(sum(cost_usd), 0) AS cost, "
        f"sum(cost_usd IS NULL) FROM runs WHERE {where} GROUP BY key ORDER BY {order}", params).fetchall()
    if by != "day":
        note_damaged_names(history, where, params, [by])
    return [UsageRow(shown_name(r[0]), int(r[1]), int(r[2]), int(r[3]), int(r[4]), int(r[5]), float(r[6]),
                     int(r[7])) for r in rows]


@dataclass(frozen=True)
class Spend:
    cost_usd: float
    unpriced: int  # runs in the period whose cost is unknown


def spend_since(history: History, since: date) -> Spend:
    row = history.db.execute("SELECT coalesce(sum(cost_usd), 0), coalesce(sum(cost_usd IS NULL), 0) FROM runs "
                             "WHERE started_at >= ? AND status != 'running'", [start_of_day(since)]).fetchone()
    return Spend(float(row[0]), int(row[1]))


def today_and_month(history: History, today: date | None = None) -> tuple[Spend, Spend]:
    day = today or date.today()
    return spend_since(history, day), spend_since(history, day.replace(day=1))


def last_days(history: History, days: int, today: date | None = None) -> list[UsageRow]:
    """Exactly ``days`` rows, one per day ending today, days without runs as zeros (for the chart)."""
    end = today or date.today()
    first = end - timedelta(days=days - 1)
    found = {row.key: row for row in usage_rows(history, since=first, by="day")}
    out = []
    for i in range(days):
        key = (first + timedelta(days=i)).isoformat()
        out.append(found.get(key) or UsageRow(key, 0, 0, 0, 0, 0, 0.0, 0))
    return out


def conversation_cost(history: History, conversation_id: int) -> Spend:
    row = history.db.execute("SELECT coalesce(sum(cost_usd), 0), coalesce(sum(cost_usd IS NULL), 0) FROM runs "
                             "WHERE conversation_id = ? AND status != 'running'", [conversation_id]).fetchone()
    return Spend(float(row[0]), int(row[1]))


@dataclass(frozen=True)
class ProviderModelRow:
    provider: str
    model: str
    runs: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    unpriced: int


def by_provider_and_model(history: History, since: date) -> list[ProviderModelRow]:
    """Spend per provider and model since ``since``, highest first."""
    where, params = "started_at >= ? AND status != 'running'", [start_of_day(since)]
    rows = history.db.execute(
        "SELECT coalesce(provider, '(unknown)') AS p, coalesce(model, '(unknown)') AS m, count(*), "
        "coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), coalesce(sum(cost_usd), 0) AS cost, "
        f"sum(cost_usd IS NULL) FROM runs WHERE {where} GROUP BY p, m ORDER BY cost DESC, p, m", params).fetchall()
    note_damaged_names(history, where, params)
    return [ProviderModelRow(shown_name(r[0]), shown_name(r[1]), int(r[2]), int(r[3]), int(r[4]), float(r[5]),
                             int(r[6])) for r in rows]


def run_usage(history: History, conversation_id: int) -> list[tuple[str, int | None, int | None, int | None,
                                                                    int | None, float | None]]:
    """Each finished run of a conversation: id, input, output, cached and reasoning tokens, and cost."""
    return [(str(r[0]), r[1], r[2], r[3], r[4], r[5]) for r in history.db.execute(
        "SELECT id, input_tokens, output_tokens, cached_tokens, reasoning_tokens, cost_usd FROM runs "
        "WHERE conversation_id = ? AND status != 'running'", [conversation_id]).fetchall()]


def rows_csv(rows: list[UsageRow], key_name: str) -> str:
    """The rows as CSV with a header; the key column is named ``key_name`` (day, model or provider)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    names = [f.name for f in fields(UsageRow)]
    writer.writerow([key_name if n == "key" else n for n in names])
    for row in rows:
        writer.writerow([f"{row.cost_usd:.6f}" if n == "cost_usd" else getattr(row, n) for n in names])
    return out.getvalue()
