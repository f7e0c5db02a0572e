"""The monthly budget's banner above the chat: shown once this month's spend reaches 80 % of the budget
(app/usage/budget.py decides), worded for that level or for 100 %. Closing it hides it until the level
changes (80 % to 100 %, or a new month brings it back down), so it does not nag on every run."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QWidget

from widgets.warning_banner import banner_close_button


class BudgetBanner(QFrame):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("budgetBanner")  # styled like the warning banner (resources/styles)
        self.setAccessibleName("Monthly budget")
        self._level = "none"
        self._dismissed: str | None = None
        self.text = QLabel(self)
        self.text.setObjectName("bannerMessage")
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setWordWrap(True)
        close = banner_close_button(self, "Close the budget notice", self.dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 8, 8, 8)
        layout.addWidget(self.text, 1)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    @property
    def level(self) -> str:
        return self._level

    def set_level(self, level: str, message: str) -> None:
        """``level`` is ``none``, ``warn`` (80 %) or ``over`` (100 %)."""
        if level != self._level:
            self._dismissed = None
        self._level = level
        self.text.setText(message)
        self.setVisible(level != "none" and self._dismissed != level)

    def dismiss(self) -> None:
        self._dismissed = self._level
        self.hide()
