"""Preferences > Usage: the budget and per-model prices round-trip into the settings; bad prices are shown and
keep OK disabled; an emptied budget turns it off."""

from __future__ import annotations

from PySide6.QtWidgets import QTableWidgetItem

from app.secrets.store import SecretStore
from app.session.chat_session import SETTINGS_SCHEMA, preference_keys
from app.settings import Settings
from app.usage.settings import ModelPrice
from tests.support.memory_keyring import MemoryKeyring
from widgets.preferences_dialog import PreferencesDialog


def dialog_for(qtbot, settings: Settings) -> PreferencesDialog:
    dialog = PreferencesDialog(schema=SETTINGS_SCHEMA, settings=settings,
                               keys=preference_keys(SecretStore(MemoryKeyring())))
    qtbot.addWidget(dialog)
    return dialog


def test_prices_and_budget_round_trip(qtbot):
    settings = Settings()
    settings.usage.prices = {"house-model": ModelPrice(input=0.5, output=1.5)}
    dialog = dialog_for(qtbot, settings)
    tab = dialog.usage
    assert dialog.tabs.tabText(dialog.tabs.indexOf(tab)) == "Usage"
    assert not tab.budget_on.isChecked() and tab.table.rowCount() == 1
    tab.budget_on.setChecked(True)
    tab.budget.setValue(25)
    tab.add_row("", {})
    assert not dialog.ok_button.isEnabled() and "the model name is empty" in dialog.summary.text()
    for column, text in enumerate(["gpt-4o", "2", "8", "1", ""]):
        tab.table.setItem(1, column, QTableWidgetItem(text))
    assert dialog.ok_button.isEnabled(), dialog.summary.text()
    result = dialog.result_settings()
    assert result.usage.monthly_budget_usd == 25
    assert result.usage.prices == {"house-model": ModelPrice(input=0.5, output=1.5),
                                   "gpt-4o": ModelPrice(input=2, output=8, cached_input=1)}


def test_a_bad_price_is_named_and_keeps_ok_disabled(qtbot):
    dialog = dialog_for(qtbot, Settings())
    tab = dialog.usage
    tab.add_row("m", {"input": 1, "output": 1})
    tab.table.setItem(0, 2, QTableWidgetItem("lots"))
    assert not dialog.ok_button.isEnabled()
    assert "m: Output $/M must be a number, got 'lots'" in dialog.summary.text()
    tab.table.setItem(0, 2, QTableWidgetItem("-1"))
    assert "must be 0 to 10,000" in dialog.summary.text()
    tab.table.selectRow(0)
    tab.remove_selected()
    assert dialog.ok_button.isEnabled() and dialog.result_settings().usage.prices == {}


def test_unchecking_the_budget_removes_it(qtbot):
    settings = Settings()
    settings.usage.monthly_budget_usd = 10.0
    dialog = dialog_for(qtbot, settings)
    assert dialog.usage.budget_on.isChecked() and dialog.usage.budget.value() == 10.0
    dialog.usage.budget_on.setChecked(False)
    assert dialog.result_settings().usage.monthly_budget_usd is None
