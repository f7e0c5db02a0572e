"""The monthly budget in ``parley chat``: at 100 % a paid run is refused without a terminal (nothing saved or
sent) unless ``--over-budget`` is given, a terminal is asked, a local provider is never held back; past 80 % a
warning on stderr."""

from __future__ import annotations

import argparse
import sqlite3
from datetime import date
from pathlib import Path

import pytest

from app.cli.cli_budget import OverBudgetError, check_budget
from app.settings import ProviderSettings, Settings, save_settings
from app.storage import History
from app.usage.prices import Pricer
from app.usage.report import start_of_day
from tests.app.cli_helpers import run_cli
from tests.support.loopback import LoopbackServer
from tests.support.openai_wire import stream_response

PATH = "/v1/chat/completions"


def setup_home(home: Path, server: LoopbackServer, *, budget: float, spent: float) -> None:
    settings = Settings(providers=[
        ProviderSettings(id="openai", preset="openai", base_url=server.url + "/v1", default_model="gpt-4o"),
        ProviderSettings(id="box", preset="ollama", base_url=server.url + "/v1", default_model="llama3.1")],
        default_provider="openai")
    settings.usage.monthly_budget_usd = budget
    save_settings(settings, home / "config" / "settings.json")
    with History.open(home / "data" / "history.db") as history:
        cid = history.create_conversation("earlier")
        history.db.execute("INSERT INTO runs (id, conversation_id, provider, model, status, started_at, input_tokens, "
                           "output_tokens, cost_usd, priced_at) VALUES ('r0', ?, 'OpenAI', 'gpt-4o', 'complete', ?, "
                           "1, 1, ?, 1)", [cid, start_of_day(date.today()) + 1, spent])


def conversations(home: Path) -> int:
    with sqlite3.connect(home / "data" / "history.db") as conn:
        return conn.execute("SELECT count(*) FROM conversations").fetchone()[0]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, memory_keyring) -> Path:
    monkeypatch.setenv("PARLEY_TEST_KEY", "test-key-not-real")
    return tmp_path / "home"


def test_over_budget_without_a_terminal_is_refused_then_sent_with_the_flag(home, loopback, capsys, monkeypatch):
    loopback.always("POST", PATH, stream_response("Fine."))
    setup_home(home, loopback, budget=5.0, spent=5.0)
    args = ("--data-dir", str(home), "chat", "--provider", "openai", "--api-key-env", "PARLEY_TEST_KEY",
            "--tools", "none")
    refused = run_cli(capsys, monkeypatch, *args, "hello")
    assert refused.code == 1
    assert "reached the monthly budget of $5.00" in refused.err and "--over-budget" in refused.err
    assert loopback.requests == [] and conversations(home) == 1  # nothing saved or sent
    sent = run_cli(capsys, monkeypatch, *args, "--over-budget", "hello")
    assert sent.code == 0, sent.err
    assert sent.out == "Fine.\n" and len(loopback.requests) == 1


def test_a_local_provider_is_never_held_back(home, loopback, capsys, monkeypatch):
    loopback.always("POST", PATH, stream_response("Free."))
    setup_home(home, loopback, budget=5.0, spent=50.0)
    result = run_cli(capsys, monkeypatch, "--data-dir", str(home), "chat", "--provider", "box", "--tools", "none",
                     "hello")
    assert result.code == 0, result.err
    assert result.out == "Free.\n" and "budget" not in result.err


def test_past_80_percent_a_warning_and_the_run_goes(home, loopback, capsys, monkeypatch):
    loopback.always("POST", PATH, stream_response("Ok."))
    setup_home(home, loopback, budget=10.0, spent=8.5)
    result = run_cli(capsys, monkeypatch, "--data-dir", str(home), "chat", "--provider", "openai",
                     "--api-key-env", "PARLEY_TEST_KEY", "--tools", "none", "hello")
    assert result.code == 0, result.err
    assert "warning: This month's spend is $8.50, 85% of the monthly budget of $10.00" in result.err


@pytest.mark.parametrize(("answer", "sent"), [("y\n", True), ("\n", False), ("no\n", False)])
def test_a_terminal_is_asked(home, loopback, capsys, answer, sent):
    setup_home(home, loopback, budget=1.0, spent=2.0)
    settings = Settings.model_validate_json((home / "config" / "settings.json").read_text())
    args = argparse.Namespace(data_dir=str(home), over_budget=False)
    ask = lambda: check_budget(args, settings, Pricer("openai", "https://api.openai.com/v1"),  # noqa: E731
                               interactive=lambda: True, read_line=lambda: answer)
    if sent:
        ask()
    else:
        with pytest.raises(OverBudgetError, match="Not sent"):
            ask()
    assert "Send anyway? [y/N]" in capsys.readouterr().err
