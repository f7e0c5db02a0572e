"""The reasoning pane: the model's visible reasoning, live, one block per reasoning phase.

It consumes run events only. A phase is a stretch of ``reasoning`` events from one model call: a new phase
starts when a reasoning event's iteration differs from the previous reasoning event's (typically once before
tools and once after them). Deltas are queued and written into the document at most once per frame
(``FRAME_INTERVAL_MS``), so a fast stream costs one document update per frame, not one per event.

When the answer starts (a ``content`` event after reasoning) the pane collapses to a one-line summary with a
toggle to reopen it. If the model reasons again later in the same run (after tools), a pane that collapsed by
itself opens again for the new phase and collapses when the answer resumes; once the user has used the toggle
in a run, the pane leaves its state to the user.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, assert_never

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QPalette, QTextCharFormat, QTextCursor, QTextFrame, QTextFrameFormat
from PySide6.QtWidgets import QHBoxLayout, QSizePolicy, QTextBrowser, QToolButton, QVBoxLayout, QWidget

from widgets.icons import icon
from widgets.run_filter import from_earlier_run
from widgets.safe_text import SafeDocument, plain_label, visible_controls
from widgets.spinner import Spinner

if TYPE_CHECKING:  # the event classes are imported where they are matched: pydantic stays off the first frame
    from orchestration.events import ReasoningDelta, RunEvent

FRAME_INTERVAL_MS = 16
"""At most one document update per this many milliseconds while reasoning streams."""
FOLLOW_BOTTOM_SLACK_PX = 24
"""The view keeps following new text while it is scrolled to within this distance of the bottom."""
PHASE_PADDING_PX = 8

IDLE_TEXT = "The model's reasoning appears here when it sends some."
WAITING_TEXT = "Waiting for the model's reasoning…"
NONE_SENT_TEXT = "The model sent no reasoning for this answer."
_WORD = re.compile(r"\S+")


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


@dataclass
class _Phase:
    """What the pane counts about one reasoning phase; its text lives in the document."""

    iteration: int
    after_tools: list[str]
    words: int = 0
    ends_inside_word: bool = False

    def count(self, chunk: str) -> None:
        found = len(_WORD.findall(chunk))
        if found and self.ends_inside_word and not chunk[0].isspace():
            found -= 1  # the chunk continues a word the previous chunk already counted
        self.words += found
        self.ends_inside_word = not chunk[-1].isspace()


class ReasoningPane(QWidget):
    """Shows the current run's reasoning; feed it every run event through ``handle_event``."""

    visibility_wanted = Signal(bool)
    """True when this run has (or is expected to have) reasoning to show, so a window can raise the pane."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reasoningPane")
        self._expect_reasoning = False
        self._run_id: str | None = None
        self._running = False
        self._phases: list[_Phase] = []
        self._last_reasoning_iteration: int | None = None
        self._tools_since_reasoning: list[str] = []
        self._pending: list[tuple[int, list[str]]] = []  # (phase index, chunks) not yet in the document
        self._frames: list[QTextFrame] = []
        self._collapsed = False
        self._user_toggled = False
        self._visibility_announced = False
        self._updates_applied = 0

        self._flush_timer = QTimer(self)
        self._flush_timer.setSingleShot(True)
        self._flush_timer.setInterval(FRAME_INTERVAL_MS)
        self._flush_timer.timeout.connect(self._flush)

        self._toggle = QToolButton(self)
        self._toggle.setObjectName("paneToggle")
        self._toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self._toggle.setAutoRaise(True)
        self._toggle.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self._toggle.setAccessibleName("Show or hide the reasoning")
        self._toggle.clicked.connect(self._on_toggle_clicked)
        self._spinner = Spinner(self)
        self._spinner.setAccessibleName("Reasoning in progress")
        self._spinner.hide()

        self._status = plain_label(IDLE_TEXT, self)
        self._status.setObjectName("paneStatus")
        self._status.setWordWrap(True)
        self._status.setAccessibleName("Reasoning status")

        self._view = QTextBrowser(self)
        self._view.setDocument(SafeDocument(self._view))  # reasoning is model text: it loads nothing
        self._view.setObjectName("reasoningView")
        self._view.setAccessibleName("Reasoning text")
        self._view.setOpenLinks(False)
        self._view.document().setUndoRedoEnabled(False)
        self._view.hide()

        header = QHBoxLayout()
        header.setContentsMargins(0, 0, 0, 0)
        header.setSpacing(6)
        header.addWidget(self._toggle, 1)
        header.addWidget(self._spinner)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(6)
        layout.addLayout(header)
        layout.addWidget(self._status)
        layout.addWidget(self._view, 1)
        layout.addStretch(0)
        self._refresh_header()

    # --- read-only state, for the window and for tests -------------------------------------------------------

    def phase_count(self) -> int:
        """Phases shown in the document (a phase that just started appears with the next frame)."""
        return len(self._frames)

    def phase_text(self, index: int) -> str:
        """The text of phase ``index`` as the document shows it."""
        frame = self._frames[index]
        cursor = QTextCursor(self._view.document())
        cursor.setPosition(frame.firstPosition())
        cursor.setPosition(frame.lastPosition(), QTextCursor.MoveMode.KeepAnchor)
        return cursor.selection().toPlainText()

    def phase_title(self, index: int) -> str:
        return self._phase_title(index)

    def is_collapsed(self) -> bool:
        return self._collapsed

    def is_waiting(self) -> bool:
        """Whether the spinner runs (a run is active and may still send reasoning)."""
        return self._spinner.is_running()

    def summary_text(self) -> str:
        """The one-line summary in the header."""
        return self._toggle.text()

    def status_text(self) -> str:
        """The placeholder line ("waiting", "none sent"), or "" when it is hidden."""
        return self._status.text() if not self._status.isHidden() else ""

    def word_count(self) -> int:
        return sum(phase.words for phase in self._phases)

    def updates_applied(self) -> int:
        """How many coalesced document updates have been made since the pane was created."""
        return self._updates_applied

    # --- input ------------------------------------------------------------------------------------------------

    def expect_reasoning(self, expected: bool) -> None:
        """Whether the next run (or the current one, if nothing arrived yet) is expected to send reasoning."""
        self._expect_reasoning = expected
        if self._running and not self._phases:
            if expected:
                self._show_waiting()
            else:
                self._show_status(IDLE_TEXT)

    def handle_event(self, event: RunEvent) -> None:
        from orchestration import events as ev  # here, not at the top: pydantic stays off the first frame

        if from_earlier_run(event, self._run_id):
            return
        match event:
            case ev.RunStarted():
                self._start_run(event.run_id)
            case ev.ReasoningDelta():
                self._on_reasoning(event)
            case ev.ContentDelta():
                self._on_answer_text()
            case ev.ToolCalls():
                self._tools_since_reasoning.extend(call.name for call in event.calls)
            case ev.Done():
                self._finish_run()
            case (ev.ToolExecuting() | ev.ToolResult() | ev.RunWarning() | ev.Usage() | ev.ModelCallStarted()
                  | ev.ModelCallFinished() | ev.ModelExchange() | ev.RunError()):
                pass
            case _:
                assert_never(event)

    def flush(self) -> None:
        """Write queued reasoning now (after a replay, and in tests)."""
        self._flush()

    def clear(self) -> None:
        """Show no run (a new chat, or a conversation without one): empty, idle, nothing expected."""
        self._start_run(None)
        self._running = False
        self._expect_reasoning = False
        self._show_status(IDLE_TEXT)
        self._refresh_header()

    def toggle_collapsed(self) -> None:
        """Open a collapsed pane or collapse an open one, as the header toggle does."""
        self._on_toggle_clicked()

    # --- run lifecycle ----------------------------------------------------------------------------------------

    def _start_run(self, run_id: str | None) -> None:
        self._flush_timer.stop()
        self._run_id = run_id
        self._running = True
        self._phases.clear()
        self._pending.clear()
        self._frames.clear()
        self._last_reasoning_iteration = None
        self._tools_since_reasoning = []
        self._collapsed = False
        self._user_toggled = False
        self._visibility_announced = False
        self._view.clear()
        self._view.hide()
        if self._expect_reasoning:
            self._show_waiting()
        else:
            self._show_status(IDLE_TEXT)
        self._refresh_header()

    def _on_reasoning(self, event: ReasoningDelta) -> None:
        if not event.content:
            return
        if not self._phases or event.iteration != self._last_reasoning_iteration:
            self._phases.append(_Phase(event.iteration, self._tools_since_reasoning))
            self._tools_since_reasoning = []
            if self._collapsed and not self._user_toggled:
                self._set_collapsed(False)
        self._last_reasoning_iteration = event.iteration
        self._phases[-1].count(event.content)
        phase_index = len(self._phases) - 1
        if self._pending and self._pending[-1][0] == phase_index:
            self._pending[-1][1].append(event.content)
        else:
            self._pending.append((phase_index, [event.content]))
        if self._running and not self._spinner.is_running():
            self._spinner.show()
            self._spinner.start()
        if not self._visibility_announced:
            self._visibility_announced = True
            self.visibility_wanted.emit(True)
        if not self._flush_timer.isActive():
            self._flush_timer.start()

    def _on_answer_text(self) -> None:
        if not self._phases or self._collapsed or self._user_toggled:
            return
        self._flush()
        self._set_collapsed(True)

    def _finish_run(self) -> None:
        self._flush()
        self._running = False
        self._spinner.stop()
        self._spinner.hide()
        if not self._phases:
            self._show_status(NONE_SENT_TEXT if self._expect_reasoning else IDLE_TEXT)
        self._refresh_header()

    # --- view -------------------------------------------------------------------------------------------------

    def _show_waiting(self) -> None:
        self._show_status(WAITING_TEXT)
        self._spinner.show()
        self._spinner.start()
        if not self._visibility_announced:
            self._visibility_announced = True
            self.visibility_wanted.emit(True)

    def _show_status(self, text: str) -> None:
        self._status.setText(text)
        self._status.show()
        if text != WAITING_TEXT:
            self._spinner.stop()
            self._spinner.hide()

    def _flush(self) -> None:
        self._flush_timer.stop()
        if not self._pending:
            return
        scroll = self._view.verticalScrollBar()
        follow = scroll.value() >= scroll.maximum() - FOLLOW_BOTTOM_SLACK_PX
        cursor = QTextCursor(self._view.document())
        cursor.beginEditBlock()
        for phase_index, chunks in self._pending:
            while len(self._frames) <= phase_index:
                self._frames.append(self._insert_phase(cursor, len(self._frames)))
            append_at = self._frames[phase_index].lastCursorPosition()
            append_at.insertText(visible_controls("".join(chunks)), self._body_format())
        cursor.endEditBlock()
        self._pending.clear()
        self._updates_applied += 1
        self._status.hide()
        if not self._collapsed:
            self._view.show()
        if follow:
            scroll.setValue(scroll.maximum())
        self._refresh_header()

    def _insert_phase(self, cursor: QTextCursor, index: int) -> QTextFrame:
        cursor.movePosition(QTextCursor.MoveOperation.End)
        if cursor.block().length() > 1:  # the block after the previous frame is empty and takes the heading
            cursor.insertBlock()
        cursor.insertText(self._phase_title(index), self._heading_format())
        return cursor.insertFrame(self._frame_format())

    def _phase_title(self, index: int) -> str:
        phase = self._phases[index]
        title = f"Phase {index + 1}"
        if phase.after_tools:
            names = ", ".join(dict.fromkeys(phase.after_tools))
            title += f" · after {names}"
        return title

    def _frame_format(self) -> QTextFrameFormat:
        palette = self.palette()
        frame_format = QTextFrameFormat()
        frame_format.setBackground(palette.color(QPalette.ColorRole.AlternateBase))
        frame_format.setBorder(1)
        frame_format.setBorderBrush(palette.color(QPalette.ColorRole.Mid))
        frame_format.setBorderStyle(QTextFrameFormat.BorderStyle.BorderStyle_Solid)
        frame_format.setPadding(PHASE_PADDING_PX)
        frame_format.setTopMargin(4)
        frame_format.setBottomMargin(10)
        return frame_format

    def _heading_format(self) -> QTextCharFormat:
        heading = QTextCharFormat()
        heading.setFontWeight(QFont.Weight.DemiBold)
        heading.setForeground(self.palette().color(QPalette.ColorRole.PlaceholderText))
        return heading

    def _body_format(self) -> QTextCharFormat:
        body = QTextCharFormat()
        body.setFontWeight(QFont.Weight.Normal)
        body.setForeground(self.palette().color(QPalette.ColorRole.Text))
        return body

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._restyle_document()

    def _restyle_document(self) -> None:
        """Recolour the phase frames and text after a theme switch."""
        for frame in self._frames:
            frame.setFrameFormat(self._frame_format())
        if self._frames:
            whole = QTextCursor(self._view.document())
            whole.select(QTextCursor.SelectionType.Document)
            recolour = QTextCharFormat()
            recolour.setForeground(QColor(self.palette().color(QPalette.ColorRole.Text)))
            whole.mergeCharFormat(recolour)
            for index in range(len(self._frames)):
                heading = self._frames[index].firstCursorPosition()
                heading.movePosition(QTextCursor.MoveOperation.PreviousBlock)
                # Only the heading's own text: a selection reaching back over the block break would take in
                # the whole previous phase frame and turn its text into a heading.
                heading.movePosition(QTextCursor.MoveOperation.StartOfBlock)
                heading.movePosition(QTextCursor.MoveOperation.EndOfBlock, QTextCursor.MoveMode.KeepAnchor)
                heading.mergeCharFormat(self._heading_format())

    # --- collapse ---------------------------------------------------------------------------------------------

    def _on_toggle_clicked(self) -> None:
        if not self._phases:
            return
        self._user_toggled = True
        self._flush()
        self._set_collapsed(not self._collapsed)

    def _set_collapsed(self, collapsed: bool) -> None:
        self._collapsed = collapsed
        self._view.setVisible(not collapsed and bool(self._frames))
        self._refresh_header()

    def _refresh_header(self) -> None:
        if not self._phases:
            self._toggle.setText("Reasoning")
            self._toggle.setIcon(icon("reasoning"))
            self._toggle.setEnabled(False)
            self._toggle.setToolTip("")
            return
        amount = f"{_plural(len(self._phases), 'phase')} · {_plural(self.word_count(), 'word')}"
        streaming_into_view = self._running and not self._collapsed
        summary = f"Reasoning… {amount}" if streaming_into_view else f"Reasoned in {amount}"
        if summary != self._toggle.text():
            self._toggle.setText(summary)
        chevron = "chevron-right" if self._collapsed else "chevron-down"
        if chevron != self._toggle.icon().name():
            self._toggle.setEnabled(True)
            self._toggle.setIcon(icon(chevron))
            self._toggle.setToolTip("Show the reasoning" if self._collapsed else "Hide the reasoning")
