"""The run inspector drawer (Ctrl+I): the runs of the open conversation and a timeline of what one run did.

A view over ``orchestration.run_trace.RunTrace``: the list of runs comes from the app (stored runs, newest first);
the timeline shows the trace of the chosen run, model calls with their tool calls nested and warnings in place.
Selecting a row shows its request, response or tool call as redacted JSON, with Copy and Export. While a run
streams, ``handle_event`` feeds its live trace and the timeline is redrawn at most once per ``FRAME_MS``, so a
burst of deltas costs one redraw. It never reads the database: ``run_selected`` asks the app for a stored trace
and ``export_requested`` asks it to save one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, assert_never

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication, QShowEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from orchestration.run_trace import NOT_RUN, ModelCallTrace, RunSummary, RunTrace, ToolCallTrace
from tools.mcp.status import ServerStatus
from widgets.cost_text import money
from widgets.qt_present import present
from widgets.safe_text import plain_label, plain_tooltip

if TYPE_CHECKING:  # the event classes are imported where they are matched: pydantic stays off the first frame
    from orchestration.events import RunEvent, RunStarted

FRAME_MS = 16
TIMELINE_COLUMNS = 5  # step, status, time, details, cost
DETAILS_COLUMN = 3
COST_COLUMN = 4  # a model call's cost (usage event's cost_usd): last in the model, shown third (moveSection)
TIME_COLUMN_MAX_WIDTH = 420  # the time column fits its text up to this; longer text is elided, whole in the tooltip
DETAILS_MIN_WIDTH = 160  # the details column keeps at least this much of a narrow drawer; the time column gives way
TIME_COLUMN_MIN_WIDTH = 80  # the time column gives way down to this
ROLE_PAYLOAD = Qt.ItemDataRole.UserRole


def _clock(ts: int, origin: int | None) -> str:
    """A moment as milliseconds after the run started."""
    return f"+{ts - origin:,} ms" if origin else ""


def _ms(value: int | None) -> str:
    return "—" if value is None else f"{value} ms"


class Inspector(QDockWidget):
    run_selected = Signal(str)  # run id whose stored trace should be shown
    export_requested = Signal(str, str)  # run id, the run as JSON

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("Run inspector", parent)
        self.setObjectName("inspector")
        self.setAccessibleName("Run inspector")
        self.trace: RunTrace | None = None
        self._live: RunTrace | None = None
        self._owns_live = True  # False while the live trace is a conversation state's (set_live)
        self._dirty = False
        self.redraws = 0
        self._frame = QTimer(self)
        self._frame.setSingleShot(True)
        self._frame.setInterval(FRAME_MS)
        self._frame.timeout.connect(self._redraw)

        self.runs = QListWidget()
        self.runs.setAccessibleName("Runs of this conversation, newest first")
        self.runs.setWordWrap(True)
        self.runs.currentItemChanged.connect(self._run_chosen)
        self.timeline = QTreeWidget()
        self.timeline.setAccessibleName("Run timeline")
        self.timeline.setHeaderLabels(["Step", "Status", "Time", "Details", "Cost"])
        header = self.timeline.header()
        header.setStretchLastSection(False)  # details take the room left; the cost fits its text
        header.setSectionResizeMode(DETAILS_COLUMN, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(COST_COLUMN, QHeaderView.ResizeMode.ResizeToContents)
        header.moveSection(COST_COLUMN, 2)  # shown after the status, where a narrow drawer still has room for it
        self.timeline.headerItem().setTextAlignment(COST_COLUMN, Qt.AlignmentFlag.AlignRight)
        self.timeline.currentItemChanged.connect(self._item_chosen)
        self.timeline.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.timeline.viewport().installEventFilter(self)
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.detail.setAccessibleName("Request, response or tool call as JSON")
        self.detail.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.copy_button = QPushButton("Copy")
        self.copy_button.setAccessibleName("Copy the JSON shown")
        self.copy_button.clicked.connect(self.copy_detail)
        self.export_button = QPushButton("Export run…")
        self.export_button.setAccessibleName("Export the whole run as JSON")
        self.export_button.clicked.connect(self._export)
        self.empty = QLabel("No runs in this conversation yet.")
        self.mcp_servers = plain_label("")
        self.mcp_servers.setWordWrap(True)
        self.mcp_servers.setAccessibleName("MCP server status")
        self.mcp_servers.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.mcp_servers.hide()
        buttons = QHBoxLayout()
        buttons.addWidget(self.empty, 1)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.export_button)

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.runs)
        split.addWidget(self.timeline)
        split.addWidget(self.detail)
        split.setSizes([120, 320, 260])
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.mcp_servers)
        layout.addWidget(split, 1)
        layout.addLayout(buttons)
        self.setWidget(body)

    # --- MCP servers --------------------------------------------------------------------------------
    def set_mcp_servers(self, statuses: list[ServerStatus]) -> None:
        """One line per enabled server (state, tools, why it is down), so a failing MCP call can be read next to
        the state of its server; hidden when no server is enabled."""
        lines = []
        for status in statuses:
            if status.state == "disabled":
                continue
            line = f"MCP {status.name}: {status.state}"
            if status.state == "running":
                line += ", 1 tool" if len(status.tools) == 1 else f", {len(status.tools)} tools"
            if status.restarts:
                line += ", 1 restart" if status.restarts == 1 else f", {status.restarts} restarts"
            if status.message:
                line += f" ({status.message})"
            lines.append(line)
        self.mcp_servers.setText("\n".join(lines))
        self.mcp_servers.setVisible(bool(lines))

    # --- runs ---------------------------------------------------------------------------------------
    def set_runs(self, runs: list[RunSummary]) -> None:
        """The runs of the open conversation, newest first; the live run, if any, stays on top."""
        self.runs.blockSignals(True)
        self.runs.clear()
        live_id = self._live.run_id if self._live is not None and self._live.ended_ts is None else None
        if live_id is not None and self._live is not None:
            self._add_run(self._live.summary(), top=False)
        for run in runs:
            if run.run_id != live_id:
                self._add_run(run, top=False)
        self.runs.blockSignals(False)
        self.empty.setVisible(self.runs.count() == 0)
        if self.trace is not None:
            self._select_run_row(self.trace.run_id)

    def _add_run(self, run: RunSummary, *, top: bool) -> None:
        item = QListWidgetItem(run.label())
        item.setData(ROLE_PAYLOAD, run.run_id)
        if top:
            self.runs.insertItem(0, item)
        else:
            self.runs.addItem(item)

    def _select_run_row(self, run_id: str | None) -> None:
        self.runs.blockSignals(True)
        for row in range(self.runs.count()):
            if self.runs.item(row).data(ROLE_PAYLOAD) == run_id:
                self.runs.setCurrentRow(row)
        self.runs.blockSignals(False)

    def _run_chosen(self, item: QListWidgetItem | None, _previous: Any = None) -> None:
        if item is None:
            return
        run_id = item.data(ROLE_PAYLOAD)
        if self._live is not None and self._live.run_id == run_id:
            self.show_trace(self._live)
        else:
            self.run_selected.emit(run_id)

    def show_trace(self, trace: RunTrace) -> None:
        self.trace = trace
        self._select_run_row(trace.run_id)
        self._redraw()

    # --- live ---------------------------------------------------------------------------------------
    def set_live(self, trace: RunTrace | None) -> None:
        """The open conversation's latest run (its trace keeps growing while it goes), or None for a conversation
        without runs: the timeline shows it. Another conversation's run never shows here."""
        self._live = trace
        self._owns_live = False  # the conversation's state folds the events into it
        self.trace = trace
        if trace is not None:
            self._select_run_row(trace.run_id)
        if self.isVisible():
            self._redraw()
        else:  # drawn when the drawer opens: switching conversations with it closed costs nothing here
            self._dirty = True

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.flush()

    def set_secrets(self, secrets: list[str]) -> None:
        """Secrets of the next live run (the key in use), hidden in everything shown."""
        self._secrets = list(secrets)

    def handle_event(self, event: RunEvent) -> None:
        from orchestration import events as ev  # here, not at the top: pydantic stays off the first frame

        match event:
            case ev.RunStarted():
                self._start_live(event)
            case ev.Done():
                if self._fold_live(event):
                    self._update_live_label()
            case (ev.ReasoningDelta() | ev.ContentDelta() | ev.ToolCalls() | ev.ToolExecuting() | ev.ToolResult()
                  | ev.RunWarning() | ev.Usage() | ev.ModelCallStarted() | ev.ModelCallFinished()
                  | ev.ModelExchange() | ev.RunError()):
                self._fold_live(event)
            case _:
                assert_never(event)

    def _start_live(self, event: RunStarted) -> None:
        self._live = RunTrace(getattr(self, "_secrets", []))
        self._owns_live = True
        self._live.apply(event)
        self._add_run(self._live.summary(), top=True)
        self.empty.hide()
        self.show_trace(self._live)

    def _fold_live(self, event: RunEvent) -> bool:
        """Fold an event of the live run into its trace (unless a conversation's state does) and schedule a
        redraw; False for an event of another run."""
        if self._live is None or event.run_id != self._live.run_id:
            return False
        if self._owns_live:
            self._live.apply(event)
        if self.trace is self._live:
            self._dirty = True
            if not self._frame.isActive():
                self._frame.start()
        return True

    def _update_live_label(self) -> None:
        assert self._live is not None
        for row in range(self.runs.count()):
            item = self.runs.item(row)
            if item.data(ROLE_PAYLOAD) == self._live.run_id:
                item.setText(self._live.summary().label())

    def flush(self) -> None:
        """Redraw now if events are waiting (tests, and before a screenshot)."""
        if self._dirty:
            self._frame.stop()
            self._redraw()

    # --- timeline -----------------------------------------------------------------------------------
    def _redraw(self) -> None:
        self._dirty = False
        self.redraws += 1
        trace = self.trace
        current = self.timeline.currentItem()
        selected = current.data(0, ROLE_PAYLOAD) if current is not None else None
        self.timeline.clear()
        if trace is None:
            return
        origin = trace.started_ts
        for warning in trace.run_warnings:
            self._warning_item(self.timeline.invisibleRootItem(), warning, origin)
        restore: QTreeWidgetItem | None = None
        for number, call in enumerate(trace.calls, 1):
            details = (f"{call.request.get('model') or trace.model} · {call.request.get('message_count', '?')} "
                       f"messages · tools: {', '.join(call.request.get('tools') or []) or 'none'} · choice "
                       f"{call.request.get('tool_choice', 'auto')}")
            finished = call.finished
            status = (finished.finish_reason if finished else "") or call.outcome
            timing = (f"{_clock(call.started_ts, origin)} · first token {_ms(call.first_token_ms)} · "
                      f"{_ms(call.duration_ms)} · {trace.call_tokens_text(call)}")
            # events stored before contract 1.4 carry no cost: left blank rather than called unknown
            cost = money(finished.cost_usd) if finished is not None and call.cost_recorded else ""
            item = QTreeWidgetItem([f"Model call {number}", status, timing, details, cost])
            item.setTextAlignment(COST_COLUMN, Qt.AlignmentFlag.AlignRight)
            item.setData(0, ROLE_PAYLOAD, ("call", number - 1))
            self.timeline.addTopLevelItem(item)
            for tool_number, tool in enumerate(call.tools):
                transitions = " > ".join(f"{c.status} {_clock(c.ts, origin)}" for c in tool.changes)
                extra = " · truncated" if tool.truncated else ""
                if tool.status == NOT_RUN and tool.result:
                    transitions += f" · {tool.result}"  # why it did not run (the final answer call, the end)
                child = QTreeWidgetItem([tool.name, tool.status, f"{_ms(tool.duration_ms)}{extra}", transitions])
                child.setData(0, ROLE_PAYLOAD, ("tool", number - 1, tool_number))
                item.addChild(child)
                if child.data(0, ROLE_PAYLOAD) == selected:
                    restore = child
            for warning in call.warnings:
                self._warning_item(item, warning, origin)
            item.setExpanded(True)
            if item.data(0, ROLE_PAYLOAD) == selected:
                restore = item
        if trace.error:
            error = QTreeWidgetItem(["Error", trace.error.code, "", trace.redact(trace.error.message)])
            self.timeline.addTopLevelItem(error)
        if trace.unread_note:
            self.timeline.addTopLevelItem(QTreeWidgetItem(["Not shown", "", "", trace.unread_note]))
        if restore is not None:
            self.timeline.setCurrentItem(restore)
        elif selected is None and trace.calls:
            first_call = self.timeline.topLevelItem(len(trace.run_warnings))
            self.timeline.setCurrentItem(present(first_call, "the first call's row"))
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Step and status fit their longest text; time up to ``TIME_COLUMN_MAX_WIDTH``; details take the rest.
        Every cell's whole text is its tooltip, for what is still elided."""
        root = self.timeline.invisibleRootItem()
        pending = [present(root.child(i), "a timeline row") for i in range(root.childCount())]
        while pending:
            item = pending.pop()
            for column in range(TIMELINE_COLUMNS):
                item.setToolTip(column, plain_tooltip(item.text(column)))
            pending.extend(present(item.child(i), "a timeline row") for i in range(item.childCount()))
        for column in (0, 1, COST_COLUMN):
            self.timeline.resizeColumnToContents(column)
        self._fit_time_column()

    def _fit_time_column(self) -> None:
        """The time column fits its text up to ``TIME_COLUMN_MAX_WIDTH`` and gives way (down to
        ``TIME_COLUMN_MIN_WIDTH``) so the details column starts with ``DETAILS_MIN_WIDTH`` still in view."""
        timeline = self.timeline
        room = (timeline.viewport().width() - timeline.columnWidth(0) - timeline.columnWidth(1)
                - timeline.columnWidth(COST_COLUMN) - DETAILS_MIN_WIDTH)
        wanted = min(timeline.sizeHintForColumn(2), TIME_COLUMN_MAX_WIDTH)
        timeline.setColumnWidth(2, max(TIME_COLUMN_MIN_WIDTH, min(wanted, room)))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.timeline.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_time_column()  # the drawer was resized: give the time column what fits now
        return super().eventFilter(watched, event)

    def _warning_item(self, parent: QTreeWidgetItem, warning: Any, origin: int | None) -> None:
        item = QTreeWidgetItem(["Warning", warning.code, _clock(warning.ts, origin), warning.message])
        item.setToolTip(3, plain_tooltip(warning.message))
        parent.addChild(item)

    def _item_chosen(self, item: QTreeWidgetItem | None, _previous: Any = None) -> None:
        if item is None or self.trace is None:
            return
        payload = item.data(0, ROLE_PAYLOAD)
        if not payload:
            self.detail.setPlainText(item.text(3))
            return
        call: ModelCallTrace = self.trace.calls[payload[1]]
        if payload[0] == "call":
            parts = ["// request\n" + self.trace.request_json(call)]
            sent = self.trace.sent_text(call)
            if sent is not None:
                parts.append("// request as sent: " + sent)
            parts.append("// response\n" + self.trace.response_json(call))
            received = self.trace.received_text(call)
            if received is not None:
                parts.append("// response as received: " + received)
            self.detail.setPlainText("\n\n".join(parts))
        else:
            tool: ToolCallTrace = call.tools[payload[2]]
            self.detail.setPlainText(self.trace.tool_json(tool))

    def timeline_rows(self) -> list[tuple[str, ...]]:
        """The timeline as text rows (depth-first), for tests and accessibility checks."""
        rows: list[tuple[str, ...]] = []

        def walk(item: QTreeWidgetItem, depth: int) -> None:
            rows.append((str(depth), *(item.text(c) for c in range(4))))
            for i in range(item.childCount()):
                walk(present(item.child(i), "a timeline row"), depth + 1)

        for i in range(self.timeline.topLevelItemCount()):
            walk(present(self.timeline.topLevelItem(i), "a timeline row"), 0)
        return rows

    # --- copy and export ----------------------------------------------------------------------------
    def copy_detail(self) -> None:
        QGuiApplication.clipboard().setText(self.detail.toPlainText())

    def _export(self) -> None:
        if self.trace is not None and self.trace.run_id:
            self.export_requested.emit(self.trace.run_id, self.trace.export())
