"""``parley usage`` as a real process over a history file whose runs hold a BLOB provider or model: the
command prices the intact runs, shows the damaged names marked, and says once on stderr how many damaged
values it showed (before, pricing such a run failed inside the price table with a TypeError)."""

from __future__ import annotations

import json

import pytest

from app.paths import resolve_paths
from app.storage import History
from tests.app.cli.test_damaged_history_cli import parley
from tests.app.usage.test_damaged_names import BAD_MODEL, BAD_PROVIDER, COST, damaged_usage_history

NOTE = "parley: note: 2 damaged values shown as \"[damaged value]\"; the rest of the history is intact."


def test_usage_by_model_and_provider_shows_damaged_names_marked(parley_home):
    with History.open(resolve_paths().database) as history:
        damaged_usage_history(history)
    by_model = parley(parley_home, "usage", "--by", "model")
    assert by_model.returncode == 0, by_model.stderr
    lines = by_model.stdout.splitlines()
    assert any(line.startswith(BAD_MODEL) for line in lines), by_model.stdout
    assert any(line.startswith("gpt-4o ") for line in lines), by_model.stdout
    assert by_model.stderr.count(NOTE) == 1, by_model.stderr
    data = json.loads(parley(parley_home, "usage", "--by", "provider", "--json").stdout)
    rows = {row["key"]: row for row in data["rows"]}
    assert set(rows) == {"OpenAI", BAD_PROVIDER}
    assert (rows["OpenAI"]["runs"], rows["OpenAI"]["unpriced"]) == (2, 1)
    assert rows["OpenAI"]["cost_usd"] == pytest.approx(COST)
    assert (rows[BAD_PROVIDER]["runs"], rows[BAD_PROVIDER]["cost_usd"], rows[BAD_PROVIDER]["unpriced"]) == (1, 0, 1)
    assert data["month"]["unpriced"] == 2


def test_usage_by_day_counts_the_damaged_runs_as_unpriced(parley_home):
    with History.open(resolve_paths().database) as history:
        damaged_usage_history(history)
    by_day = parley(parley_home, "usage", "--csv")
    assert by_day.returncode == 0, by_day.stderr
    (day,) = by_day.stdout.splitlines()[1:]
    assert day.split(",")[1] == "3" and day.split(",")[-1] == "2", by_day.stdout
    assert by_day.stderr.count(NOTE) == 1, by_day.stderr  # counted by the pricing, though no name is shown
