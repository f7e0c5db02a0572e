"""Prices runs recorded before costs existed (or imported from a file), from the usage they stored.

Migration 4 added ``runs.cost_usd`` and ``runs.priced_at``; runs with ``priced_at`` NULL have never been
priced. Each is priced once, from its stored ``usage`` events (one per model call, so prices that depend on the
size of one call's input come out right), else from the run's token totals, at the price that applied when the
run started. Older events carry no cache writes, so an Anthropic run from before contract 1.4 is priced as if
its cache writes were plain input (a slight under-estimate). A run whose usage is unknown, or whose model has
no price, stays unknown (NULL) and is not looked at again; so does a run whose provider or model is damaged (a
BLOB, app/usage/damaged_names.py), which is counted in the damaged-values note.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.storage.history import History, now_ms
from app.storage.transactions import write_transaction
from app.usage.damaged_names import checked_name
from app.usage.prices import PricerLookup
from orchestration.bounded_json import JSONLimitError
from orchestration.engine import TokenUsage
from orchestration.events import Usage, parse_event

BATCH = 500  # runs priced per write transaction, so another writer never waits long


def price_unpriced_runs(history: History, pricers: PricerLookup) -> int:
    """Price every run not priced yet; returns how many were priced. ``pricers`` gives the pricer for a
    provider id as stored on a run (``prices.pricers_from_settings``)."""
    db = history.db
    done = 0
    while True:
        rows = list(db.query("SELECT id, provider, model, started_at, input_tokens, output_tokens, cached_tokens "
                             "FROM runs WHERE priced_at IS NULL AND status != 'running' LIMIT ?", [BATCH]))
        if not rows:
            return done
        with write_transaction(db):
            for row in rows:
                cost = _run_cost(history, row, pricers)
                db.execute("UPDATE runs SET cost_usd = ?, priced_at = ? WHERE id = ? AND priced_at IS NULL",
                           [cost, now_ms(), row["id"]])
        done += len(rows)


def _run_cost(history: History, row: dict[str, Any], pricers: PricerLookup) -> float | None:
    provider = checked_name(history, row["id"], "provider", row["provider"])
    model = checked_name(history, row["id"], "model", row["model"])
    if provider is None or model is None or row["input_tokens"] is None:
        return None
    pricer = pricers(provider)
    at = datetime.fromtimestamp(row["started_at"] / 1000, tz=UTC)
    calls = _stored_calls(history, row["id"])
    if not calls:
        calls = [TokenUsage(input_tokens=row["input_tokens"], output_tokens=row["output_tokens"] or 0,
                            cached_tokens=row["cached_tokens"] or 0)]
    costs = [pricer(model, usage, at) for usage in calls]
    return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)


def _stored_calls(history: History, run_id: str) -> list[TokenUsage]:
    calls = []
    for (text,) in history.db.execute("SELECT event FROM run_events WHERE run_id = ? AND type = 'usage' "
                                      "ORDER BY seq", [run_id]).fetchall():
        try:
            event = parse_event(text)
        except (JSONLimitError, ValueError):
            continue
        if isinstance(event, Usage):
            calls.append(TokenUsage(input_tokens=event.input_tokens, output_tokens=event.output_tokens,
                                    reasoning_tokens=event.reasoning_tokens, cached_tokens=event.cached_tokens,
                                    cache_write_tokens=event.cache_write_tokens))
    return calls
