"""Run costs in the history: the recorder sums each model call's cost; a database written by the previous
release (schema 2, events of contract 1.3) is migrated and its runs are priced from their stored usage; and
``parley usage`` reports them per day, model and provider as a table, JSON and CSV."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import sqlite3
from datetime import UTC, date, datetime
from pathlib import Path

import genai_prices
import pytest
from sqlite_utils import Database

from app.settings import ProviderSettings, Settings, save_settings
from app.storage import History
from app.storage.migrations import MIGRATIONS, apply_migrations
from app.storage.run_recorder import RunRecorder
from app.usage.backfill import price_unpriced_runs
from app.usage.prices import Pricer, pricers_from_settings
from app.usage.report import conversation_cost, last_days, spend_since, start_of_day, usage_rows
from app.usage.settings import ModelPrice
from orchestration.engine import TokenUsage
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.scripted import ScriptedModel, Step
from tests.app.cli_helpers import run_cli
from tools.registry import ToolRegistry

OPENAI = "https://api.openai.com/v1"


def library(model: str, provider: str, input_tokens: int, output_tokens: int, cached: int = 0,
            at: datetime | None = None) -> float:
    return float(genai_prices.calc_price(
        genai_prices.Usage(input_tokens=input_tokens, output_tokens=output_tokens, cache_read_tokens=cached or None),
        model, provider_id=provider, genai_request_timestamp=at).total_price)


def record(history: History, steps: list[Step], model: str, pricer: Pricer | None) -> str:
    cid = history.create_conversation("t")
    recorder = RunRecorder(history, cid)
    ids = recorder.begin("hi", provider="openai", model=model)
    loop = RunLoop(ScriptedModel(steps), ToolRegistry([]), recorder, price=pricer)
    asyncio.run(loop.run(RunRequest(model=model, messages=[UserMessage(content="hi")], run_id=ids.run_id)))
    return ids.run_id


def test_the_recorder_stores_the_runs_cost(tmp_path: Path) -> None:
    with History.open(tmp_path / "h.db") as history:
        pricer = Pricer("openai", OPENAI)
        run_id = record(history, [Step(text="a", calls=[("nope", {})], usage=TokenUsage(input_tokens=1000,
                                                                                        output_tokens=10)),
                                  Step(text="b", usage=TokenUsage(input_tokens=2000, output_tokens=20))],
                        "gpt-4o", pricer)
        cost, priced = history.db.execute("SELECT cost_usd, priced_at FROM runs WHERE id = ?", [run_id]).fetchone()
        assert cost == pytest.approx(library("gpt-4o", "openai", 1000, 10) + library("gpt-4o", "openai", 2000, 20))
        assert priced is not None
        unknown = record(history, [Step(text="a", usage=TokenUsage(input_tokens=5, output_tokens=5))], "mystery",
                         pricer)
        no_usage = record(history, [Step(text="a")], "gpt-4o", pricer)
        for rid in (unknown, no_usage):
            assert history.db.execute("SELECT cost_usd, priced_at IS NOT NULL FROM runs WHERE id = ?",
                                      [rid]).fetchone() == (None, 1)
        assert conversation_cost(history, 1).cost_usd == pytest.approx(cost)


def old_event(run_id: str, seq: int, kind: str, **fields: object) -> tuple:
    event = {"v": "1.3", "run_id": run_id, "seq": seq, "ts": 0, "iteration": 1, "type": kind, **fields}
    return (run_id, seq, kind, 1, 0, json.dumps(event))


def make_release_2_database(path: Path, started: int) -> None:
    """A history file exactly as the previous release left it: schema 2, runs with tokens, 1.3 usage events."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = Database(sqlite3.connect(path))
    apply_migrations(db, MIGRATIONS[:2])
    db.execute("INSERT INTO conversations (id, title, created_at, updated_at) VALUES (1, 'old', 0, 0)")
    runs = [  # id, provider (runs store the provider's display name, its preset's title), model, status, tokens
        ("r-openai", "OpenAI", "gpt-4o", "complete", 3000, 300, 1000),
        ("r-totals", "Anthropic", "claude-sonnet-4-5", "complete", 5000, 500, 0),  # no usage events stored
        ("r-local", "Ollama (OpenAI-compatible /v1)", "llama3.1", "complete", 800, 80, 0),
        ("r-unknown", "OpenAI", "not-a-real-model", "complete", 10, 10, 0),
        ("r-nousage", "OpenAI", "gpt-4o", "error", None, None, None),
        ("r-running", "OpenAI", "gpt-4o", "running", 1, 1, 0),
        ("r-custom", "Custom OpenAI-compatible server", "gpt-4o", "complete", 10, 10, 0),
    ]
    for rid, provider, model, status, inp, out, cached in runs:
        db.execute("INSERT INTO runs (id, conversation_id, provider, model, status, started_at, input_tokens, "
                   "output_tokens, reasoning_tokens, cached_tokens) VALUES (?, 1, ?, ?, ?, ?, ?, ?, 0, ?)",
                   [rid, provider, model, status, started, inp, out, cached])
    db.conn.executemany("INSERT INTO run_events (run_id, seq, type, iteration, ts, event) VALUES (?, ?, ?, ?, ?, ?)",
                        [old_event("r-openai", 3, "usage", input_tokens=1000, output_tokens=100, reasoning_tokens=0,
                                   cached_tokens=0),
                         old_event("r-openai", 7, "usage", input_tokens=2000, output_tokens=200, reasoning_tokens=0,
                                   cached_tokens=1000)])
    db.conn.commit()
    db.close()


def test_an_older_database_is_migrated_and_its_runs_priced_from_stored_tokens(tmp_path: Path) -> None:
    path = tmp_path / "data" / "history.db"
    started = start_of_day(date.today()) + 3_600_000
    make_release_2_database(path, started)
    at = datetime.fromtimestamp(started / 1000, tz=UTC)
    with History.open(path) as history:  # migrations 3 and 4 run here
        assert history.db.execute("SELECT count(*) FROM runs WHERE priced_at IS NULL").fetchone() == (7,)
        # the run left 'running' by a process that is gone was recovered as interrupted on opening
        assert history.db.execute("SELECT status FROM runs WHERE id = 'r-running'").fetchone() == ("interrupted",)
        assert price_unpriced_runs(history, pricers_from_settings([], {})) == 7
        cost = dict(history.db.execute("SELECT id, cost_usd FROM runs").fetchall())
        assert cost["r-openai"] == pytest.approx(library("gpt-4o", "openai", 1000, 100, at=at)
                                                 + library("gpt-4o", "openai", 2000, 200, 1000, at=at))
        assert cost["r-totals"] == pytest.approx(library("claude-sonnet-4-5", "anthropic", 5000, 500, at=at))
        assert cost["r-local"] == 0.0
        assert cost["r-unknown"] is None and cost["r-nousage"] is None and cost["r-custom"] is None
        assert cost["r-running"] == pytest.approx(library("gpt-4o", "openai", 1, 1, at=at))
        assert price_unpriced_runs(history, pricers_from_settings([], {})) == 0  # each run priced once
        by_model = {r.key: r for r in usage_rows(history, since=date.today(), by="model")}
        assert by_model["gpt-4o"].cost_usd == pytest.approx(cost["r-openai"] + cost["r-running"])
        assert by_model["gpt-4o"].unpriced == 2  # the run that reported no usage, the custom server's
        assert by_model["not-a-real-model"].unpriced == 1
        month = spend_since(history, date.today().replace(day=1))
        assert month.cost_usd == pytest.approx(cost["r-openai"] + cost["r-totals"] + cost["r-running"])
        assert month.unpriced == 3
        days = last_days(history, 30)
        assert len(days) == 30 and days[-1].key == date.today().isoformat() and days[0].runs == 0
        assert days[-1].cost_usd == pytest.approx(month.cost_usd)


def test_an_override_in_the_settings_prices_a_model_the_table_lacks(tmp_path: Path) -> None:
    path = tmp_path / "data" / "history.db"
    make_release_2_database(path, start_of_day(date.today()))
    with History.open(path) as history:
        price_unpriced_runs(history, pricers_from_settings(
            [ProviderSettings(id="work", preset="openai", base_url=OPENAI)],
            {"not-a-real-model": ModelPrice(input=1000, output=2000)}))
        (cost,) = history.db.execute("SELECT cost_usd FROM runs WHERE id = 'r-unknown'").fetchone()
        assert cost == pytest.approx(10 * 1000 / 1e6 + 10 * 2000 / 1e6)


def test_parley_usage_table_json_and_csv(tmp_path: Path, capsys, monkeypatch) -> None:
    home = tmp_path / "home"
    make_release_2_database(home / "data" / "history.db", start_of_day(date.today()) + 1000)
    settings = Settings(providers=[ProviderSettings(id="openai", preset="openai", base_url=OPENAI)],
                        default_provider="openai")
    settings.usage.monthly_budget_usd = 10.0
    save_settings(settings, home / "config" / "settings.json")
    table = run_cli(capsys, monkeypatch, "--data-dir", str(home), "usage", "--by", "model")
    assert table.code == 0, table.err
    assert "gpt-4o" in table.out and "claude-sonnet-4-5" in table.out and "of a $10.00 budget" in table.out
    assert "have no known price" in table.out and "genai-prices" in table.out
    as_json = run_cli(capsys, monkeypatch, "--data-dir", str(home), "usage", "--by", "provider", "--json")
    data = json.loads(as_json.out)
    assert data["by"] == "provider" and data["month"]["budget_usd"] == 10.0
    providers = {r["key"]: r for r in data["rows"]}
    assert providers["Ollama (OpenAI-compatible /v1)"]["cost_usd"] == 0.0 and providers["OpenAI"]["unpriced"] == 2
    as_csv = run_cli(capsys, monkeypatch, "--data-dir", str(home), "usage", "--csv", "--since",
                     date.today().isoformat())
    rows = list(csv.DictReader(io.StringIO(as_csv.out)))
    assert [r["day"] for r in rows] == [date.today().isoformat()] and rows[0]["runs"] == "7"
    bad = run_cli(capsys, monkeypatch, "--data-dir", str(home), "usage", "--since", "yesterday")
    assert bad.code == 2 and "YYYY-MM-DD" in bad.err
