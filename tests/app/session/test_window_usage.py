"""Usage and cost in the real window, offscreen, against a loopback server that streams like OpenAI: each
answer's tokens and cost under it (live and reopened), the inspector's cost column, the status bar's spend,
the budget banner at 80 % and the question at 100 % (not for a local provider), and the usage dialog with its
chart, its table and the CSV export."""

from __future__ import annotations

import asyncio
import csv
from pathlib import Path

import genai_prices
import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from app.paths import resolve_paths
from app.secrets import provider_entry
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from app.storage import History
from app.storage.run_recorder import RunRecorder
from app.usage.prices import Pricer
from app.usage.settings import ModelPrice
from orchestration.engine import TokenUsage
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.scripted import ScriptedModel, Step
from tests.support.loopback import LoopbackServer
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_response
from tools.registry import ToolRegistry
from widgets.cost_text import answer_footer, money
from widgets.inspector import COST_COLUMN

PATH = "/v1/chat/completions"
# what stream_response reports: 12 prompt tokens, 7 completion tokens
COST = float(genai_prices.calc_price(genai_prices.Usage(input_tokens=12, output_tokens=7), "gpt-4o",
                                     provider_id="openai").total_price)


def configure(server: LoopbackServer, budget: float | None = None) -> SecretStore:
    """OpenAI through a proxy on this machine (priced as OpenAI) and a local Ollama, with a key stored."""
    settings = Settings(providers=[
        ProviderSettings(id="openai", preset="openai", base_url=server.url + "/v1", default_model="gpt-4o"),
        ProviderSettings(id="box", preset="ollama", base_url=server.url + "/v1", default_model="llama3.1")],
        default_provider="openai")
    settings.usage.monthly_budget_usd = budget
    save_settings(settings, resolve_paths().settings)
    secrets = SecretStore(MemoryKeyring())
    secrets.store(provider_entry("openai"), "test-key-not-real")
    return secrets


def spend_earlier(dollars: float) -> None:
    """A run earlier this month that cost ``dollars`` (priced by a per-model override)."""
    with History.open(resolve_paths().database) as history:
        cid = history.create_conversation("earlier")
        recorder = RunRecorder(history, cid)
        ids = recorder.begin("hi", provider="openai", model="pricey")
        pricer = Pricer("openai", overrides={"pricey": ModelPrice(input=dollars * 1000, output=0)})
        loop = asyncio.new_event_loop()  # not asyncio.run: that would unset the window's qasync loop
        try:
            loop.run_until_complete(RunLoop(ScriptedModel([Step(text="ok", usage=TokenUsage(
                input_tokens=1000, output_tokens=1))]), ToolRegistry([]), recorder, price=pricer).run(
                RunRequest(model="pricey", messages=[UserMessage(content="hi")], run_id=ids.run_id)))
        finally:
            loop.close()


def send_and_wait(qasync_loop, session, text: str) -> None:
    done = qasync_loop.create_future()
    session.controller.run_finished.connect(lambda r: done.set_result(r) if not done.done() else None)
    session.send(text)
    if not session.controller.running:
        return
    qasync_loop.run_until_complete(asyncio.wait_for(done, 15))
    qasync_loop.run_until_complete(asyncio.sleep(0.05))
    session.window.chat_view.flush()


def test_each_answer_shows_its_tokens_and_cost_and_the_inspector_each_calls(qtbot, qasync_loop, loopback,
                                                                            parley_home):
    loopback.always("POST", PATH, stream_response("Otters hold hands."))
    window, session = build_window(secrets=configure(loopback), discover=False)
    qtbot.addWidget(window)
    window.show()
    send_and_wait(qasync_loop, session, "What do otters do?")
    footer = answer_footer(12, 7, COST)
    assert footer == f"12 in · 7 out · {money(COST)}"
    text = window.chat_view.toPlainText()
    assert text.index("Otters hold hands.") < text.index(footer)
    assert f"Chat {money(COST)}" in session.usage.spend_label.text()
    assert f"Today {money(COST)}" in session.usage.spend_label.text()

    session.new_chat()
    assert footer not in window.chat_view.toPlainText()
    cid = window.conversations.ids_in_order()[0]
    session.open_conversation(cid)  # read back from the history
    assert footer in window.chat_view.toPlainText()

    window.toggle_inspector()
    window.inspector.flush()
    call = window.inspector.timeline.topLevelItem(0)
    assert call.text(0) == "Model call 1" and call.text(COST_COLUMN) == money(COST)
    assert window.inspector.timeline.headerItem().text(COST_COLUMN) == "Cost"
    session.history.close()


def test_the_budget_warns_at_80_percent(qtbot, loopback, parley_home):
    spend_earlier(5.0)
    window, session = build_window(secrets=configure(loopback, budget=6.0), discover=False)
    qtbot.addWidget(window)
    window.show()
    banner = session.usage.banner
    assert not banner.isHidden() and banner.level == "warn"
    assert "83% of the monthly budget of $6.00" in banner.text.text()
    assert "of $6.00" in session.usage.spend_label.text()
    banner.dismiss()
    assert banner.isHidden()
    session.usage.refresh()
    assert banner.isHidden(), "closed stays closed while the level is the same"
    session.history.close()


def answer_question(button_text: str, seen: list[str]) -> None:
    """Click a button of the modal question when it appears."""
    def click() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, click)
            return
        seen.append(box.text())
        button = next(b for b in box.buttons() if b.text() == button_text)
        button.click()

    QTimer.singleShot(20, click)


def test_at_100_percent_a_paid_run_asks_first_and_a_local_one_does_not(qtbot, qasync_loop, loopback, parley_home):
    loopback.always("POST", PATH, stream_response("Fine."))
    spend_earlier(5.0)
    window, session = build_window(secrets=configure(loopback, budget=5.0), discover=False)
    qtbot.addWidget(window)
    window.show()
    assert session.usage.banner.level == "over" and not session.usage.banner.isHidden()

    seen: list[str] = []
    answer_question("Cancel", seen)
    window.composer.input_widget().setPlainText("Costly question")
    send_and_wait(qasync_loop, session, "Costly question")
    assert len(seen) == 1 and "has reached the monthly budget of $5.00" in seen[0]
    assert loopback.requests == [] and window.composer.input_widget().toPlainText().startswith("Costly question")

    answer_question("Send anyway", seen)
    send_and_wait(qasync_loop, session, "Costly question")
    assert len(seen) == 2 and len(loopback.requests) == 1
    assert "Fine." in window.chat_view.toPlainText()

    assert window.composer.set_current_model("box", "llama3.1")
    send_and_wait(qasync_loop, session, "Free question")
    assert len(seen) == 2, "a local provider never asks"
    assert len(loopback.requests) == 2
    session.history.close()


def test_the_usage_dialog_charts_30_days_lists_providers_and_exports_csv(qtbot, qasync_loop, loopback,
                                                                          parley_home, tmp_path: Path):
    loopback.always("POST", PATH, stream_response("Sure."))
    spend_earlier(2.0)
    window, session = build_window(secrets=configure(loopback), discover=False)
    qtbot.addWidget(window)
    window.show()
    send_and_wait(qasync_loop, session, "Hello")
    window.menus.usage.trigger()
    dialog = session.usage.dialog
    assert dialog is not None and dialog.isVisible()
    days = dialog.chart.days()
    assert len(days) == 30 and days[-1].cost_usd == pytest.approx(2.0 + COST) and days[-1].runs == 2
    rows = dialog.table_rows()
    assert rows[0][:3] == ("scripted", "pricey", "1") and rows[0][5] == "$2.00"  # as the recorder saw it
    assert ("OpenAI", "gpt-4o", "1", "12", "7", money(COST)) in rows  # runs keep the provider's display name
    assert "genai-prices" in dialog.source.text()
    target = tmp_path / "usage.csv"
    session.usage.choose_csv_path = lambda: str(target)
    dialog.export_button.click()
    exported = list(csv.DictReader(target.open(encoding="utf-8")))
    assert len(exported) == 30 and float(exported[-1]["cost_usd"]) == pytest.approx(2.0 + COST, abs=1e-6)
    assert exported[-1]["runs"] == "2"
    dialog.close()
    session.history.close()


def test_the_price_table_loads_when_the_first_priced_run_is_sent_not_at_start(qtbot, loopback, parley_home,
                                                                              monkeypatch):
    """Issue 17: genai-prices (about 10 MB with its HTTP client) is not loaded by a window that has sent nothing,
    nor for a local provider, whose runs cost nothing; the first paid run starts loading it, once."""
    loads: list[int] = []
    monkeypatch.setattr("app.session.window_usage.warm_up", lambda: loads.append(1))
    window, session = build_window(secrets=configure(loopback), discover=False)
    qtbot.addWidget(window)
    assert loads == []
    local = Pricer("ollama", loopback.url + "/v1", local=True)
    paid = Pricer("openai", loopback.url + "/v1")
    assert session.usage.confirm_spend(local)
    assert loads == []
    assert session.usage.confirm_spend(paid) and session.usage.confirm_spend(paid)
    assert loads == [1]
    session.history.close()


@pytest.mark.qt_log_ignore("This plugin does not support raise")  # the tooltip shows offscreen
def test_the_spend_tooltip_names_the_price_table_when_it_shows(qtbot, loopback, parley_home):
    """Issue 17: the price table's version is read (importlib.metadata, about 3.5 MB) when the spend's tooltip
    first shows, not at start; the tooltip then names it, and says so again each time it shows."""
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent

    window, session = build_window(secrets=configure(loopback), discover=False)
    qtbot.addWidget(window)
    window.show()
    label = session.usage.spend_label
    assert "genai-prices" not in label.toolTip()
    for _ in range(2):
        QApplication.sendEvent(label, QHelpEvent(QEvent.Type.ToolTip, QPoint(2, 2), label.mapToGlobal(QPoint(2, 2))))
        tip = label.toolTip()
        assert tip.startswith("Spend of this conversation") and tip.count("Prices: genai-prices ") == 1, tip
    session.history.close()
