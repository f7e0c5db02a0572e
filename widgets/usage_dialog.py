"""Usage and cost (View > Usage and cost…): the last 30 days' spend and tokens as a chart, spend per provider
and model as a table, and "Export CSV…". It shows plain values the app gives it (app/session/window_usage.py) and asks
the app to write the file (``export_requested``); it reads no database itself."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from widgets.cost_text import money
from widgets.qt_present import present
from widgets.usage_chart import DayPoint, UsageChart

COLUMNS = ("Provider", "Model", "Runs", "Input tokens", "Output tokens", "Cost")


@dataclass(frozen=True)
class UsageLine:
    provider: str
    model: str
    runs: int
    input_tokens: int
    output_tokens: int
    cost_usd: float
    unpriced: int = 0  # runs whose cost is unknown


class UsageDialog(QDialog):
    export_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Usage and cost")
        self.setObjectName("usageDialog")
        self.resize(820, 620)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setAccessibleName("Spend summary")
        self.chart = UsageChart()
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setAccessibleName("Spend per provider and model")
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.source = QLabel()
        self.source.setWordWrap(True)
        self.source.setTextFormat(Qt.TextFormat.PlainText)
        self.source.setObjectName("usageSource")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.export_button = QPushButton("Export CSV…")
        self.export_button.setAccessibleName("Export the daily usage as CSV")
        buttons.addButton(self.export_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.export_button.clicked.connect(self.export_requested.emit)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(QLabel("Last 30 days: spend (bars) and tokens (line)"))
        layout.addWidget(self.chart, 3)
        layout.addWidget(QLabel("By provider and model (last 30 days)"))
        layout.addWidget(self.table, 2)
        layout.addWidget(self.source)
        layout.addWidget(buttons)

    def set_data(self, days: list[DayPoint], lines: list[UsageLine], *, summary: str, source: str) -> None:
        self.summary.setText(summary)
        self.source.setText(source)
        self.chart.set_days(days)
        self.table.setRowCount(len(lines))
        for row, line in enumerate(lines):
            cost = money(line.cost_usd) + (f" + {line.unpriced} unknown" if line.unpriced else "")
            cells = (line.provider, line.model, f"{line.runs:,}", f"{line.input_tokens:,}",
                     f"{line.output_tokens:,}", cost)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if column >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)

    def table_rows(self) -> list[tuple[str, ...]]:
        return [tuple(present(self.table.item(r, c), "a usage cell").text() for c in range(len(COLUMNS)))
                for r in range(self.table.rowCount())]
