"""Preferences > Usage: the monthly budget and per-model prices (the settings' ``usage`` section).

A price set here wins over the bundled price table for that model name on every provider, and gives a price to
models the table does not list (a custom server, NVIDIA). Prices are US dollars per million tokens; the cache
columns may stay empty, which means "the input price". Problems are shown per row and keep OK disabled.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from widgets.form_errors import error_label

MAX_PRICE = 10_000.0  # USD per million tokens, as app/usage/settings.py's MAX_PRICE_PER_MTOK
MAX_BUDGET = 1_000_000.0
COLUMNS = ("Model", "Input $/M", "Output $/M", "Cached input $/M", "Cache write $/M")
FIELDS = ("input", "output", "cached_input", "cache_write")
OPTIONAL = {"cached_input", "cache_write"}
NOTE = ("Costs come from the genai-prices table bundled with Parley (never fetched); local models cost $0.00. "
        "A price here wins for that model name and fills in models the table does not list.")


class UsageTab(QWidget):
    changed = Signal()

    def __init__(self, prices: dict[str, dict[str, Any]], budget: float | None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.budget_on = QCheckBox("Monthly budget (US dollars)")
        self.budget_on.setAccessibleName("Use a monthly budget")
        self.budget = QDoubleSpinBox()
        self.budget.setAccessibleName("Monthly budget in US dollars")
        self.budget.setRange(0.01, MAX_BUDGET)
        self.budget.setDecimals(2)
        self.budget.setPrefix("$")
        self.budget.setValue(budget if budget is not None else 20.0)
        self.budget_on.setChecked(budget is not None)
        self.budget.setEnabled(budget is not None)
        self.budget_on.toggled.connect(self.budget.setEnabled)
        budget_note = QLabel("At 80 % a banner warns; at 100 % runs against paid providers ask before sending.")
        budget_note.setWordWrap(True)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setAccessibleName("Prices per model")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for model, price in prices.items():
            self.add_row(model, price)
        self.table.itemChanged.connect(lambda _item: self.changed.emit())
        add = QPushButton("Add a price")
        add.clicked.connect(lambda: self.add_row("", {}))
        remove = QPushButton("Remove")
        remove.clicked.connect(self.remove_selected)
        self.problem_label = error_label()
        note = QLabel(NOTE)
        note.setWordWrap(True)

        row = QHBoxLayout()
        row.addWidget(self.budget_on)
        row.addWidget(self.budget)
        row.addStretch(1)
        buttons = QHBoxLayout()
        buttons.addWidget(add)
        buttons.addWidget(remove)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addWidget(budget_note)
        layout.addSpacing(8)
        layout.addWidget(note)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.problem_label)

    def add_row(self, model: str, price: dict[str, Any]) -> None:
        row = self.table.rowCount()
        self.table.insertRow(row)
        self.table.setItem(row, 0, QTableWidgetItem(model))
        for column, name in enumerate(FIELDS, 1):
            value = price.get(name)
            self.table.setItem(row, column, QTableWidgetItem("" if value is None else f"{value:g}"))
        self.changed.emit()

    def remove_selected(self) -> None:
        rows = sorted({index.row() for index in self.table.selectedIndexes()}, reverse=True)
        for row in rows:
            self.table.removeRow(row)
        self.changed.emit()

    def _cell(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text().strip() if item is not None else ""

    def _parsed(self) -> tuple[dict[str, dict[str, float | None]], list[str]]:
        prices: dict[str, dict[str, float | None]] = {}
        problems: list[str] = []
        for row in range(self.table.rowCount()):
            model = self._cell(row, 0)
            if not model:
                problems.append(f"Usage: row {row + 1}: the model name is empty")
                continue
            if model in prices:
                problems.append(f"Usage: {model} has two prices")
                continue
            price: dict[str, float | None] = {}
            for column, name in enumerate(FIELDS, 1):
                text = self._cell(row, column).lstrip("$")
                if not text and name in OPTIONAL:
                    price[name] = None
                    continue
                try:
                    value = float(text)
                except ValueError:
                    problems.append(f"Usage: {model}: {COLUMNS[column]} must be a number, got {text!r}")
                    continue
                if not 0 <= value <= MAX_PRICE:
                    problems.append(f"Usage: {model}: {COLUMNS[column]} must be 0 to {MAX_PRICE:,.0f}")
                    continue
                price[name] = value
            prices[model] = price
        return prices, problems

    def all_problems(self) -> list[str]:
        problems = self._parsed()[1]
        self.problem_label.setText("\n".join(problems))
        self.problem_label.setVisible(bool(problems))
        return problems

    def result(self) -> dict[str, Any]:
        """The settings' ``usage`` section as plain data."""
        return {"prices": self._parsed()[0],
                "monthly_budget_usd": self.budget.value() if self.budget_on.isChecked() else None}
