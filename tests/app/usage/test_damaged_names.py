"""A BLOB where a run stores its provider or model (left by another program or a damaged file) no longer breaks
the usage figures: the backfill prices that run as unknown instead of failing inside the price table, the
report groups and shows the name marked as damaged, every intact run is priced and listed, and each damaged
name is counted once in the same note as the rest of the history's damaged values. Real SQLite files."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import genai_prices
import pytest

from app.storage import History
from app.storage.damaged_values import DAMAGED_MARK, damaged_count
from app.usage.backfill import price_unpriced_runs
from app.usage.prices import pricers_from_settings
from app.usage.report import by_provider_and_model, today_and_month, usage_rows
from tests.app.storage.test_blob_values import put_blob
from tests.app.storage.test_history import record_answer

TOKENS = (1000, 100)
# what each intact run costs: 1000 input and 100 output tokens of gpt-4o at OpenAI
COST = float(genai_prices.calc_price(genai_prices.Usage(input_tokens=TOKENS[0], output_tokens=TOKENS[1]), "gpt-4o",
                                     provider_id="openai").total_price)
BAD_MODEL = DAMAGED_MARK + "\ufffdgpt-4o"
BAD_PROVIDER = DAMAGED_MARK + "Open\ufffd"


def damaged_usage_history(history: History) -> dict[str, str]:
    """Three unpriced runs of OpenAI's gpt-4o (as a run stores them: the provider's display name): one intact,
    one whose model is a BLOB, one whose provider is a BLOB."""
    cid = history.create_conversation("Spend")
    runs = {name: record_answer(history, cid, f"question {name}", "answer").ids.run_id
            for name in ("intact", "model", "provider")}
    history.db.execute("UPDATE runs SET provider = 'OpenAI', model = 'gpt-4o', input_tokens = ?, "
                       "output_tokens = ?, cost_usd = NULL, priced_at = NULL", list(TOKENS))
    put_blob(history, "runs", "model", b"\xffgpt-4o", "id = ?", runs["model"])
    put_blob(history, "runs", "provider", b"Open\x00", "id = ?", runs["provider"])
    return runs


@pytest.fixture
def history(tmp_path: Path) -> Iterator[History]:
    with History.open(tmp_path / "data" / "history.db") as opened:
        yield opened


def test_a_damaged_name_is_priced_as_unknown_and_the_rest_priced(history):
    runs = damaged_usage_history(history)
    assert price_unpriced_runs(history, pricers_from_settings([], {})) == 3
    costs = dict(history.db.execute("SELECT id, cost_usd FROM runs").fetchall())
    assert costs == {runs["intact"]: pytest.approx(COST), runs["model"]: None, runs["provider"]: None}
    today, month = today_and_month(history)
    assert (today.cost_usd, today.unpriced) == (pytest.approx(COST), 2)
    assert (month.cost_usd, month.unpriced) == (pytest.approx(COST), 2)
    assert damaged_count(history.path) == 2


def test_the_report_shows_damaged_names_marked_and_counts_each_once(history):
    damaged_usage_history(history)
    price_unpriced_runs(history, pricers_from_settings([], {}))
    today = date.today()
    models = {(r.key, r.runs, r.unpriced) for r in usage_rows(history, since=today, by="model")}
    assert models == {("gpt-4o", 2, 1), (BAD_MODEL, 1, 1)}
    providers = {(r.key, r.runs, r.unpriced) for r in usage_rows(history, since=today, by="provider")}
    assert providers == {("OpenAI", 2, 1), (BAD_PROVIDER, 1, 1)}
    lines = {(r.provider, r.model, r.runs) for r in by_provider_and_model(history, today)}
    assert lines == {("OpenAI", "gpt-4o", 1), ("OpenAI", BAD_MODEL, 1), (BAD_PROVIDER, "gpt-4o", 1)}
    (day,) = usage_rows(history, since=today, by="day")
    assert (day.runs, day.cost_usd, day.unpriced) == (3, pytest.approx(COST), 2)
    assert damaged_count(history.path) == 2  # read by the backfill and three reports, counted once each

