"""Which conversation the window shows, and the view state of every conversation with a run going.

``ChatSession`` decides what Send, New chat and opening a conversation do; this module keeps the per-conversation
side of it out of that class: every event of every live run is folded into its conversation's
``ConversationState`` and reaches the window only when that conversation is on screen; opening a conversation
shows its live state if a run is going, else its latest run read back from the database through the same fold
(so a reopened conversation, in this session or after a restart, shows what it showed live); the approval panel
holds the question of the conversation on screen only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from app.session.history_view import chat_messages, stored_run_errors
from app.session.live_runs import LiveRun, LiveRuns
from app.storage import History
from app.storage.branches import versions
from app.storage.records import MessageRecord
from app.storage.run_view import run_view_events
from orchestration.events import RunEvent
from widgets import conversation_display as display
from widgets.conversation_state import NEW_CHAT, ConversationState, ConversationStates
from widgets.main_window import MainWindow
from widgets.message_attachments import AttachmentView


def stored_state(history: History, conversation_id: int) -> ConversationState:
    """The conversation's latest run as stored (its events, redacted when written), or an empty state."""
    runs = history.runs(conversation_id)
    if not runs:
        return ConversationState(conversation_id)
    return ConversationState.from_stored(conversation_id, run_view_events(history, runs[-1].id))


def before_live_answer(records: list[MessageRecord], run_id: str | None = None) -> list[MessageRecord]:
    """The stored messages up to the question a going run answers: its checkpointed answer is shown from the
    run's own events instead, so it is not shown twice. A run that continues an answer stopped early (run
    ``run_id``) keeps that answer's earlier part, which is not in its events."""
    last_question = max((i for i, r in enumerate(records) if r.role == "user"), default=-1)
    earlier = [r for r in records[last_question + 1:] if run_id is not None and r.run_id != run_id]
    return records[:last_question + 1] + earlier


class ConversationViews:
    def __init__(self, window: MainWindow, runs: LiveRuns) -> None:
        self.window = window
        self.runs = runs
        self.states = ConversationStates()
        self.shown: int | None = NEW_CHAT
        runs.conversation_event.connect(self._event)

    def state(self, conversation_id: int | None) -> ConversationState:
        return self.states.get(conversation_id)

    def saved_as(self, conversation_id: int | None) -> None:
        """The new chat on screen was saved as ``conversation_id`` (its first question was recorded)."""
        if self.shown is NEW_CHAT and conversation_id is not NEW_CHAT:
            self.states.move(NEW_CHAT, conversation_id)
        self.shown = conversation_id

    # --- showing --------------------------------------------------------------------------------------
    def show_new(self) -> None:
        """An empty new chat: no messages (a hint instead), empty panes, nothing waiting."""
        self._leave()
        self.shown = NEW_CHAT
        self.states.drop(NEW_CHAT)
        self.window.clear_approval()
        display.show_state(self.window, self.states.get(NEW_CHAT), [])

    def show(self, history: History, conversation_id: int, records: list[MessageRecord],
             visibility_of: Callable[[str], str],
             attachments_of: Callable[[MessageRecord], list[AttachmentView]] = lambda record: [],
             footers: Mapping[str, tuple[str, str]] | None = None) -> None:
        """Show a conversation: live if a run of it is going, else as stored (raises StorageError). ``footers``:
        each answer's tokens and cost by run id (app/session/window_usage.py)."""
        live = self.runs.get(conversation_id)
        if live is not None and self.runs.is_running(conversation_id):
            state = self.states.get(conversation_id)
            ids = live.recorder.ids if live.recorder is not None else None
            records = before_live_answer(records, ids.run_id if ids is not None else None)
        elif not records:  # every question deleted: its runs' reasoning and results went with them
            state = ConversationState(conversation_id)
        else:
            state = stored_state(history, conversation_id)
        self._leave()
        self.states.put(state)
        self.shown = conversation_id
        self.window.clear_approval()
        shown = chat_messages(records, visibility_of, versions(history, conversation_id),  # ‹ 2/3 › (chat_actions.py)
                              attachments_of, footers=footers,
                              run_errors=stored_run_errors(history, conversation_id))
        display.show_state(self.window, state, shown)
        if live is not None and live.approver is not None:
            live.approver.show_again()

    def _leave(self) -> None:
        """The conversation on screen is left: its state is kept only while a run of it goes."""
        state = self.states.find(self.shown)
        if state is not None and not state.running:
            self.states.drop(self.shown)

    # --- live runs ------------------------------------------------------------------------------------
    def starting(self, conversation_id: int | None) -> None:
        """A run of the conversation on screen was sent: the chat waits for the model from now on."""
        state = self.states.get(conversation_id)
        state.running = state.waiting = True
        state.reasoning_seen = False
        display.show_progress(self.window, state)

    def pending(self, conversation_id: int | None, call_ids: list[str]) -> None:
        """The run of ``conversation_id`` waits for the user's approval of ``call_ids`` ([] once decided)."""
        state = self.states.get(conversation_id)
        state.pending_approval = list(call_ids)
        if conversation_id == self.shown:
            display.show_progress(self.window, state)

    def ended(self, live: LiveRun) -> None:
        """A run ended (or crashed): a conversation not on screen needs its state no more."""
        state = self.states.find(live.conversation_id)
        if state is not None:
            state.running = state.waiting = False
            state.pending_approval = []
        if live.conversation_id != self.shown:
            self.states.drop(live.conversation_id)
        else:
            display.show_progress(self.window, self.states.get(live.conversation_id))

    def _event(self, live: LiveRun, event: RunEvent) -> None:
        state = self.states.get(live.conversation_id)
        state.fold(event)
        if live.conversation_id == self.shown:
            display.event(self.window, state, event)
