"""Usage and cost in the window: the status bar's spend (this chat, today, this month), the budget banner and
the question before a run over budget, the answers' footers when a conversation is opened, and the usage
dialog with its CSV export. Kept out of app/session/chat_session.py, which only creates it and asks it two things;
what it reads of the session is ``UsageSession``, so this module does not import the session's. The spend itself is
read by app/usage/, which ``parley usage`` and ``parley chat`` share.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, cast

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QBoxLayout, QFileDialog, QMessageBox, QWidget

from app.errors import EnvironmentProblem
from app.file_write import write_file_atomically
from app.storage import History, StorageError
from app.usage.backfill import price_unpriced_runs
from app.usage.budget import BudgetStatus, budget_status
from app.usage.prices import Pricer, price_source, pricers_from_settings, warm_up
from app.usage.report import (
    by_provider_and_model,
    conversation_cost,
    last_days,
    rows_csv,
    run_usage,
    today_and_month,
)
from widgets.budget_banner import BudgetBanner
from widgets.cost_text import answer_detail, answer_footer, money, spend_text
from widgets.qt_present import present
from widgets.safe_text import plain_label

if TYPE_CHECKING:
    from app.session.live_runs import LiveRuns
    from app.settings import Settings
    from widgets.main_window import MainWindow
    from widgets.usage_dialog import UsageDialog

CHART_DAYS = 30


class UsageSession(Protocol):
    """What the usage wiring reads of the window's session (``ChatSession``, which creates it)."""

    @property
    def window(self) -> MainWindow: ...
    @property
    def controller(self) -> LiveRuns: ...
    @property
    def history(self) -> History | None: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def conversation_id(self) -> int | None: ...


def ask_over_budget(parent: QWidget, status: BudgetStatus) -> bool:
    """A modal question: send this run although the month's budget is spent?"""
    box = QMessageBox(QMessageBox.Icon.Warning, "Monthly budget reached", status.message(),
                      QMessageBox.StandardButton.Cancel, parent)
    box.setObjectName("budgetQuestion")
    box.setInformativeText("Send this message anyway?")
    send = box.addButton("Send anyway", QMessageBox.ButtonRole.AcceptRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is send


def choose_csv_path(parent: QWidget | None) -> str | None:
    from app.session.conversation_files import documents_folder  # with export, not with the window (issue 17)

    suggested = documents_folder() / f"parley-usage-{date.today().isoformat()}.csv"
    path, _ = QFileDialog.getSaveFileName(parent, "Export usage as CSV", str(suggested), "CSV (*.csv)")
    return path or None


class UsageWiring(QObject):
    def __init__(self, session: UsageSession, *, parent: QObject) -> None:
        super().__init__(parent)  # the session, whose life it shares
        self.session = session
        window = session.window
        self.spend_label = plain_label("")
        self.spend_label.setAccessibleName("Spend")
        window.statusBar().addPermanentWidget(self.spend_label)
        self.banner = BudgetBanner()
        column = present(window.banner.parentWidget(), "the banner's parent")
        layout = cast(QBoxLayout, column.layout())  # the banner sits in a column
        layout.insertWidget(layout.indexOf(window.banner) + 1, self.banner)
        self.dialog: UsageDialog | None = None
        self.ask: Callable[[BudgetStatus], bool] = lambda status: ask_over_budget(window, status)
        self.choose_csv_path: Callable[[], str | None] = lambda: choose_csv_path(self.dialog or window)
        window.menus.usage_requested.connect(self.open_dialog)
        session.controller.run_finished.connect(lambda _result: self.refresh())
        window.conversations.conversation_selected.connect(lambda _cid: self.refresh())
        window.conversations.new_chat_requested.connect(self.refresh)
        self._prices_loading = False
        self._spend_tip = ""  # the spend's tooltip without the price source, which is added when it shows
        self.spend_label.installEventFilter(self)
        self.refresh()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """The spend's tooltip names the price table's version, read only when the tooltip is about to show."""
        if watched is self.spend_label and event.type() == QEvent.Type.ToolTip and self._spend_tip:
            self.spend_label.setToolTip(f"{self._spend_tip}. Prices: {price_source()}.")
        return False

    def _warm_prices(self, pricer: Pricer | None) -> None:
        """The price table (genai-prices with its own HTTP client: about 10 MB) loads in the background when the
        first run that it prices is sent, not at start: a window that runs nothing, or only local models, never
        needs it, and the answer takes longer than the load, so its cost needs no wait (issue 17)."""
        if self._prices_loading or pricer is None or pricer.local:
            return
        self._prices_loading = True
        warm_up()

    # --- reading ------------------------------------------------------------------------------------
    def _priced_history(self) -> History | None:
        """The history with every run priced (runs from before costs existed get theirs here, once)."""
        history = self.session.history
        if history is not None:
            settings = self.session.settings
            price_unpriced_runs(history, pricers_from_settings(settings.providers, settings.usage.prices))
        return history

    def refresh(self) -> None:
        """Status bar spend, and the budget banner."""
        budget = self.session.settings.usage.monthly_budget_usd
        try:
            history = self._priced_history()
            if history is None:
                self.spend_label.setText("")
                return
            today, month = today_and_month(history)
            cid = self.session.conversation_id
            chat = conversation_cost(history, cid) if cid is not None else None
        except StorageError as problem:
            self.spend_label.setText("Spend: unavailable")
            self._spend_tip = ""
            self.spend_label.setToolTip(str(problem))
            return
        self.spend_label.setText(spend_text(today.cost_usd, month.cost_usd, budget,
                                            chat=None if chat is None else chat.cost_usd,
                                            chat_unknown=bool(chat and chat.unpriced)))
        unknown = month.unpriced + today.unpriced
        self._spend_tip = ("Spend of this conversation, today and this month (US dollars)"
                           + (f"; runs with no known price are not counted ({month.unpriced} this month)"
                              if unknown else ""))
        self.spend_label.setToolTip(self._spend_tip + ".")  # + the price source when shown (eventFilter)
        status = BudgetStatus(month.cost_usd, budget, month.unpriced)
        self.banner.set_level(status.level, status.message())

    def footers(self, conversation_id: int) -> dict[str, tuple[str, str]]:
        """Each answer's footer and tooltip, by run id."""
        try:
            history = self._priced_history()
            runs = [] if history is None else run_usage(history, conversation_id)
        except StorageError:
            return {}
        return {run_id: (answer_footer(inp, out, cost), answer_detail(inp, out, cached, reasoning, cost))
                for run_id, inp, out, cached, reasoning, cost in runs if inp is not None}

    # --- the budget question --------------------------------------------------------------------------
    def confirm_spend(self, pricer: Pricer | None) -> bool:
        """True when the run may be sent: under budget, a local provider, or the user said so."""
        self._warm_prices(pricer)
        budget = self.session.settings.usage.monthly_budget_usd
        if budget is None:
            return True
        try:
            status = budget_status(self._priced_history(), budget)
        except StorageError:
            return True  # the spend cannot be read: the budget cannot be enforced, the run is not blocked
        local = pricer is not None and pricer.local
        self.banner.set_level(status.level, status.message())
        return not status.asks_before(local) or self.ask(status)

    # --- the dialog ---------------------------------------------------------------------------------
    def open_dialog(self) -> UsageDialog:
        if self.dialog is None:
            from widgets.usage_dialog import UsageDialog  # with the first opening, not at start

            self.dialog = UsageDialog(self.session.window)
            self.dialog.export_requested.connect(self.export_csv)
        self.fill_dialog(self.dialog)
        if self.dialog.isVisible():
            self.dialog.raise_()
        else:
            self.dialog.show()
        return self.dialog

    def fill_dialog(self, dialog: UsageDialog, today: date | None = None) -> None:
        from widgets.usage_chart import DayPoint
        from widgets.usage_dialog import UsageLine

        end = today or date.today()
        settings = self.session.settings
        try:
            history = self._priced_history()
            days = [] if history is None else last_days(history, CHART_DAYS, end)
            lines = [] if history is None else by_provider_and_model(history, end - timedelta(days=CHART_DAYS - 1))
            month = budget_status(history, settings.usage.monthly_budget_usd, end) if history is not None else None
            spent = today_and_month(history, end)[1] if history is not None else None
        except StorageError as problem:
            dialog.set_data([], [], summary=str(problem), source="")
            return
        total = sum(d.cost_usd for d in days)
        summary = f"Last {CHART_DAYS} days: {money(total)}."
        if spent is not None:
            summary += f" This month: {money(spent.cost_usd)}"
            if settings.usage.monthly_budget_usd is not None and month is not None:
                summary += (f" of the {money(settings.usage.monthly_budget_usd)} budget "
                            f"({month.spent / settings.usage.monthly_budget_usd:.0%})")
            summary += "."
        unknown = sum(d.unpriced for d in days)
        if unknown:
            summary += f" {unknown} run(s) have no known price and are not counted."
        dialog.set_data(
            [DayPoint(d.key, d.cost_usd, d.input_tokens + d.output_tokens, d.runs, d.unpriced) for d in days],
            [UsageLine(r.provider, r.model, r.runs, r.input_tokens, r.output_tokens, r.cost_usd, r.unpriced)
             for r in lines],
            summary=summary,
            source=f"Prices: {price_source()}, bundled with Parley and never fetched; local models cost $0.00; "
                   "set your own per model in Preferences > Usage.")

    def export_csv(self) -> None:
        """The last 30 days, one row per day, to a file the user picks."""
        path = self.choose_csv_path()
        if not path:
            return
        try:
            history = self._priced_history()
            days = [] if history is None else last_days(history, CHART_DAYS)
            write_file_atomically(Path(path), rows_csv(days, "day"))
        except EnvironmentProblem as problem:  # StorageError included
            QMessageBox.warning(self.dialog or self.session.window, "Export usage", str(problem))
            return
        self.session.window.statusBar().showMessage(f"Exported usage to {path}.", 5000)
