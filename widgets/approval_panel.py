"""Asking the user, inside the chat area, whether the tool calls of one model turn may run.

The panel sits above the composer (never a dialog per call). For each pending call it shows the tool's name and
its arguments as indented JSON (or, for a tool that describes its call, such as a file write, that description:
path, sizes and a diff) in a read-only, scrollable box that can be expanded to its full height, with
Allow once / Always allow / Deny; Allow all and Deny all decide the rest of the batch at once. When every call
has a decision the panel emits ``decided`` and hides. It knows nothing about runs or settings: the app turns
``decided`` into the loop's approval answer and saves "always" choices (app/session/window_approver.py).
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt, Signal
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
PANEL_MAX_HEIGHT_PX = 420
"""The panel scrolls when a batch is taller, so the conversation stays in view."""

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
        buttons = QHBoxLayout()
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
        layout.addLayout(buttons)

    def _height_for(self, lines: int) -> int:
        return self._line_height * max(lines, 1) + 2 * self.arguments.frameWidth() + 8

    def is_expanded(self) -> bool:
        return self.expand.text() == "Show less"

    def _toggle_expanded(self) -> None:
        expanded = not self.is_expanded()
        lines = self.arguments.document().blockCount() if expanded else ARGUMENTS_COLLAPSED_LINES
        self.arguments.setFixedHeight(self._height_for(lines))
        self.expand.setText("Show less" if expanded else "Show all")

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
        top = QHBoxLayout()
        top.addWidget(self.heading, 1)
        top.addWidget(self.allow_all)
        top.addWidget(self.deny_all)
        self._cards_host = QWidget()
        self._cards = QVBoxLayout(self._cards_host)
        self._cards.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(self._cards_host)
        scroll.setMaximumHeight(PANEL_MAX_HEIGHT_PX)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        layout.addLayout(top)
        layout.addWidget(scroll)
        self._decisions: dict[str, str] = {}
        self.cards: list[_CallCard] = []
        self.hide()

    def ask(self, calls: list[PendingCall]) -> None:
        self.clear()
        count = len(calls)
        self.heading.setText("The model wants to run a tool. Allow it?" if count == 1 else
                             f"The model wants to run {count} tools. Decide each, or all at once.")
        for call in calls:
            card = _CallCard(call, self._cards_host)
            card.chosen.connect(self._chosen)
            self._cards.addWidget(card)
            self.cards.append(card)
        self.allow_all.setVisible(count > 1)
        self.deny_all.setVisible(count > 1)
        self.show()
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
