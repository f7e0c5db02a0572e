"""Shows one conversation's state in the window: its messages, its latest run in the panes, its waiting state.

Switching conversations, starting a new chat and reopening after a restart all come here with the conversation's
``ConversationState`` (widgets/conversation_state.py) and its stored messages. The panes are not told what to
show by a second code path: they are cleared and handed the state's events, the same events they took while the
run streamed, so what they show after a switch or a restart is what they showed live. Stored events this version
could not read are named in a notice under the messages. Live events of the conversation on screen go through
``event`` (the window's widgets, then the waiting state and token counts).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orchestration.events import RunEvent
from widgets.chat_view import ChatMessage
from widgets.conversation_state import ConversationState, coalesced

if TYPE_CHECKING:
    from widgets.main_window import MainWindow

EMPTY_CHAT_TEXT = ("New chat. Type below and press Enter to send; Shift+Enter adds a line. The model, tools and "
                   "reasoning effort are chosen beside Send. Ctrl+K searches earlier conversations, Ctrl+I opens "
                   "the run inspector, F1 lists the shortcuts.")


def show_state(window: MainWindow, state: ConversationState, messages: list[ChatMessage]) -> None:
    """Show a conversation: ``messages`` are its stored messages (for a run that is going, up to and including
    the question it answers); the state's latest run is replayed into the chat (when going) and the panes."""
    chat = window.chat_view
    if not messages and not state.events and not state.unread_note:
        chat.set_messages([ChatMessage("notice", EMPTY_CHAT_TEXT)])
    elif state.unread_note and not state.running:  # a stored run with events this version cannot read
        chat.set_messages([*messages, ChatMessage("notice", state.unread_note)])
    else:
        chat.set_messages(messages)
    window.reasoning_pane.clear()
    search = window.built_search_pane()  # a pane not built yet has nothing to clear; the first event builds it
    if search is not None:
        search.clear()
    window.banner.clear()
    window.reasoning_pane.expect_reasoning(state.running and state.expect_reasoning)
    for event in coalesced(state.events):
        if state.running:
            chat.handle_event(event)
        window.reasoning_pane.handle_event(event)
        window.search_pane.handle_event(event)
        window.banner.handle_event(event)
    if state.running:
        chat.show_pending(state.pending_approval)
        chat.flush()
        chat.scroll_to_bottom()
    window.reasoning_pane.flush()
    window.show_run_trace(state.trace)  # the latest run's timeline, growing while it goes
    window.composer.set_running(state.running)
    show_progress(window, state)


def leave_empty(window: MainWindow) -> None:
    """The first question of a new chat is sent: the empty chat's hint goes."""
    shown = window.chat_view.messages()
    if len(shown) == 1 and shown[0].role == "notice" and shown[0].text == EMPTY_CHAT_TEXT:
        window.chat_view.set_messages([])


def event(window: MainWindow, state: ConversationState, run_event: RunEvent) -> None:
    """A live event of the conversation on screen (already folded into ``state``)."""
    window.handle_event(run_event)
    show_progress(window, state)


def show_progress(window: MainWindow, state: ConversationState) -> None:
    """The waiting state (typing indicator, pending chips) and the token counts of the conversation on screen."""
    window.typing.set_text(state.waiting_text())
    if state.pending_approval:
        window.chat_view.show_pending(state.pending_approval)
    window.set_tokens(state.tokens_text())
