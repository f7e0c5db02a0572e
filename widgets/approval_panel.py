"""Asking the user, inside the chat area, whether the tool calls of one model turn may run.

The panel sits above the composer (never a dialog per call). For each pending call it shows the tool's name and
its arguments as indented JSON (or, for a tool that describes its call, such as a file write, that description:
path, sizes and a diff) in a read-only, scrollable box that "Show all" expands as far as the panel has room
(the box scrolls past that, so a call's Allow once / Always allow / Deny stay in view however long it is);
Allow all and Deny all decide the rest of the batch at once. When every call has a decision the panel emits
``decided`` and hides. It knows nothing about runs or settings: the app turns ``decided`` into the loop's
approval answer and saves "always" choices (app/session/window_approver.py).
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from widgets.safe_text import visible_controls

ARGUMENTS_COLLAPSED_LINES = 6
"""Lines of arguments shown before "Show all" is pressed; the box scrolls until then."""
ARGUMENTS_MIN_LINES = 2
"""In a window too short for more, the box shows at least this many lines (it scrolls) beside the decisions."""
PANEL_MAX_HEIGHT_PX = 420
"""The panel scrolls when a batch is taller, so the conversation stays in view."""
PANEL_MAX_SHARE = 0.5
"""In a short window the cards' area takes at most this share of the column it sits in (the chat keeps the rest)."""

ALLOW, ALWAYS, DENY = "allow", "always", "deny"


@dataclass(frozen=True)
class PendingCall:
    call_id: str
    name: str
    arguments: dict[str, Any]
    preview: str | None = None  # the tool's own account of the call (a write's diff), shown instead of the JSON


def pretty_arguments(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, indent=2, ensure_ascii=False, sort_keys=True) if arguments else "{}"


class _CallCard(QFrame):
    """One pending call: its tool, its arguments and its three choices."""

    chosen = Signal(str, str)  # call id, ALLOW | ALWAYS | DENY
    expanded_changed = Signal()

    def __init__(self, call: PendingCall, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.call = call
        self.choice: str | None = None
        self.setObjectName("approvalCard")
        self.setAccessibleName(f"Tool call {call.name}")
        asks = "wants to make this change:" if call.preview is not None else "wants to run with:"
        title = QLabel(f"<b>{html.escape(call.name)}</b> {asks}")  # MCP servers name their tools
        title.setTextFormat(Qt.TextFormat.RichText)
        # control characters and bidi overrides show as text: what the user approves is what they read
        shown = visible_controls(call.preview if call.preview is not None else pretty_arguments(call.arguments))
        self.arguments = QPlainTextEdit(shown)
        self.arguments.setObjectName("approvalArguments")
        self.arguments.setReadOnly(True)
        self.arguments.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.arguments.setAccessibleName(f"Arguments of {call.name}")
        self._line_height = self.arguments.fontMetrics().lineSpacing()
        self._cap_px: int | None = None  # set by the panel: the most the box may take where it is shown
        lines = self.arguments.document().blockCount()
        self.arguments.setFixedHeight(self._height_for(min(lines, ARGUMENTS_COLLAPSED_LINES)))
        self.expand = QPushButton("Show all")
        self.expand.setAccessibleName(f"Show all arguments of {call.name}")
        self.expand.setVisible(lines > ARGUMENTS_COLLAPSED_LINES)
        self.expand.clicked.connect(self._toggle_expanded)
        self.allow = QPushButton("Allow once")
        self.always = QPushButton(f"Always allow {call.name}")
        self.deny = QPushButton("Deny")
        self.status = QLabel()
        self.status.setAccessibleName(f"Decision for {call.name}")
        for button, choice, name in ((self.allow, ALLOW, "Allow once"), (self.always, ALWAYS, "Always allow"),
                                     (self.deny, DENY, "Deny")):
            button.setAccessibleName(f"{name}: {call.name}")
            button.clicked.connect(lambda _=False, c=choice: self.decide(c))
        self.decision_row = QWidget()
        buttons = QHBoxLayout(self.decision_row)
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(self.expand)
        buttons.addStretch(1)
        buttons.addWidget(self.status)
        buttons.addWidget(self.allow)
        buttons.addWidget(self.always)
        buttons.addWidget(self.deny)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.addWidget(title)
        layout.addWidget(self.arguments)
        layout.addWidget(self.decision_row)

    def _height_for(self, lines: int) -> int:
        return self._line_height * max(lines, 1) + 2 * self.arguments.frameWidth() + 8

    def is_expanded(self) -> bool:
        return self.expand.text() == "Show less"

    def chrome_height(self) -> int:
        """The card's height without its arguments box: title, decision row, margins."""
        return self.sizeHint().height() - self.arguments.height()

    def set_cap(self, pixels: int) -> None:
        """The tallest the box may be (collapsed or expanded), so the whole card, its decisions too, fits where
        it is shown; never below ``ARGUMENTS_MIN_LINES``."""
        self._cap_px = max(pixels, self._height_for(ARGUMENTS_MIN_LINES))
        self._apply_height(self.is_expanded())

    def _apply_height(self, expanded: bool) -> None:
        lines = self.arguments.document().blockCount()
        wanted = self._height_for(lines if expanded else min(lines, ARGUMENTS_COLLAPSED_LINES))
        self.arguments.setFixedHeight(wanted if self._cap_px is None else min(wanted, self._cap_px))

    def _toggle_expanded(self) -> None:
        expanded = not self.is_expanded()
        self.expand.setText("Show less" if expanded else "Show all")
        self._apply_height(expanded)
        self.expanded_changed.emit()

    def decide(self, choice: str) -> None:
        if self.choice is not None:
            return
        self.choice = choice
        for button in (self.allow, self.always, self.deny):
            button.setEnabled(False)
        self.status.setText({ALLOW: "Allowed", ALWAYS: "Always allowed", DENY: "Denied"}[choice])
        self.chosen.emit(self.call.call_id, choice)


class ApprovalPanel(QFrame):
    """``ask(calls)`` shows a batch; ``decided`` carries {call id: ALLOW | ALWAYS | DENY} once all are decided."""

    decided = Signal(dict)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approvalPanel")
        self.setAccessibleName("Tool approval")
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.allow_all = QPushButton("Allow all")
        self.allow_all.setAccessibleName("Allow all pending tool calls")
        self.allow_all.clicked.connect(lambda: self._decide_rest(ALLOW))
        self.deny_all = QPushButton("Deny all")
        self.deny_all.setAccessibleName("Deny all pending tool calls")
        self.deny_all.clicked.connect(lambda: self._decide_rest(DENY))
        self._top = top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.allow_all)
        top.addWidget(self.deny_all)
        self._cards_host = QWidget()
        self._cards = QVBoxLayout(self._cards_host)
        self._cards.setContentsMargins(0, 0, 0, 0)
        self.cards_area = QScrollArea()
        self.cards_area.setWidgetResizable(True)
        self.cards_area.setFrameShape(QFrame.Shape.NoFrame)
        self.cards_area.setWidget(self._cards_host)
        self.cards_area.setMaximumHeight(PANEL_MAX_HEIGHT_PX)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addLayout(top)
        layout.addWidget(self.cards_area)
        self._decisions: dict[str, str] = {}
        self.cards: list[_CallCard] = []
        self._watched: QWidget | None = None
        self.hide()

    def budget(self) -> int:
        """The height the cards' area may take: PANEL_MAX_HEIGHT_PX, at most PANEL_MAX_SHARE of the column it
        sits in, and no more than the column has left once the chat, the composer and the panel's heading have
        their least, so asking never makes the window taller."""
        parent = self.parentWidget()
        if parent is None or parent.height() <= 0:
            return PANEL_MAX_HEIGHT_PX
        room = parent.height() - self._others_least(parent)
        return max(1, min(PANEL_MAX_HEIGHT_PX, int(parent.height() * PANEL_MAX_SHARE), room))

    def _others_least(self, parent: QWidget) -> int:
        """The least height the rest of the column (the chat, the composer ...) and this panel's heading take."""
        own = self.layout()
        least = 0
        if own is not None:
            margins = own.contentsMargins()
            least += margins.top() + margins.bottom() + own.spacing() + self._top.minimumSize().height()
        column = parent.layout()
        if column is None:
            return least
        margins = column.contentsMargins()
        least += margins.top() + margins.bottom()
        shown = 0
        for index in range(column.count()):
            item = column.itemAt(index)
            widget = item.widget() if item is not None else None
            if item is None or widget is self or (widget is not None and widget.isHidden()):
                continue
            least += item.minimumSize().height()
            shown += 1
        return least + max(column.spacing(), 0) * shown

    def _fit(self, shown: _CallCard | None = None) -> None:
        """Size the cards' area to its cards within the budget; no card outgrows it, so its decisions show."""
        budget = self.budget()
        for card in self.cards:
            card.set_cap(budget - card.chrome_height())
        self._cards_host.adjustSize()
        wanted = self._cards.sizeHint().height()
        self.cards_area.setMaximumHeight(budget)
        self.cards_area.setMinimumHeight(min(wanted, budget))
        if shown is not None:
            self._cards.activate()
            self.cards_area.ensureWidgetVisible(shown.decision_row, 0, 0)

    def _expanded(self) -> None:
        card = self.sender()
        self._fit(card if isinstance(card, _CallCard) else None)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._watched and event.type() == QEvent.Type.Resize and self.cards:
            self._fit()
        return super().eventFilter(watched, event)

    def _watch_parent(self) -> None:
        parent = self.parentWidget()
        if parent is not self._watched:
            if self._watched is not None:
                self._watched.removeEventFilter(self)
            self._watched = parent
            if parent is not None:
                parent.installEventFilter(self)

    def ask(self, calls: list[PendingCall]) -> None:
        self.clear()
        count = len(calls)
        self.heading.setText("The model wants to run a tool. Allow it?" if count == 1 else
                             f"The model wants to run {count} tools. Decide each, or all at once.")
        for call in calls:
            card = _CallCard(call, self._cards_host)
            card.chosen.connect(self._chosen)
            card.expanded_changed.connect(self._expanded)
            self._cards.addWidget(card)
            self.cards.append(card)
        self.allow_all.setVisible(count > 1)
        self.deny_all.setVisible(count > 1)
        self._watch_parent()
        self.show()
        self._fit()
        if self.cards:
            self.cards[0].allow.setFocus()

    def is_asking(self) -> bool:
        parent = self.parentWidget()
        return self.isVisibleTo(parent) if parent is not None else not self.isHidden()

    def clear(self) -> None:
        """Drop the batch without a decision (the run was stopped)."""
        for card in self.cards:
            card.deleteLater()
        self.cards = []
        self._decisions = {}
        self.hide()

    def _decide_rest(self, choice: str) -> None:
        for card in list(self.cards):
            card.decide(choice)

    def _chosen(self, call_id: str, choice: str) -> None:
        self._decisions[call_id] = choice
        if self.cards and len(self._decisions) == len(self.cards):
            decisions = dict(self._decisions)
            self.clear()
            self.decided.emit(decisions)
