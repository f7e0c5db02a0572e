"""The window's message actions carried out: the chat view's action bar, context menu and shortcuts
(widgets/message_actions.py) ask, and this module changes the conversation and starts runs.

Branch changes go through the history's branch model (app/storage/branches.py, app/storage/history.py), the
same one ``parley history branch/switch`` and ``parley chat --regenerate`` use, so the window and the CLI see
the same tree. Runs (another answer, an edited question, a continuation) start through the session's one path
into the run service, with a ``Placement`` saying where they go. After each change the view is read again from
the database, so what is shown is what is stored. What this module uses of the session (app/session/chat_session.py,
which creates it) is ``ActionsSession``, so the two modules do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject

from app.attachments import PreparedAttachment
from app.errors import EnvironmentProblem
from app.session.history_view import chat_messages, stored_run_errors
from app.session.question_attachments import kept_attachments
from app.session.window_attachments import stored_views
from app.storage import History, StorageError
from app.storage.branches import add_edited_answer, chain, delete_pair, switch_version, versions
from widgets.chat_view import ChatMessage
from widgets.message_actions import MessageActions

if TYPE_CHECKING:
    from app.runs.chat_recording import Placement  # with the run service, at the first run (issue 17)
    from app.runs.chat_turn import ChatSettings
    from app.runs.run_service import RegistryFactory
    from app.secrets.store import SecretStore
    from app.session.live_runs import LiveRuns
    from app.session.window_usage import UsageWiring
    from app.settings import Settings
    from widgets.main_window import MainWindow

STATUS_MS = 5000
# ValueError covers the run service's RunSetupError, which is not imported here: the run service loads with the
# first run (issue 17).
PROBLEMS = (EnvironmentProblem, StorageError, LookupError, ValueError)


class ActionsSession(Protocol):
    """What the message actions use of the window's session (``ChatSession``, which creates them)."""

    @property
    def window(self) -> MainWindow: ...
    @property
    def controller(self) -> LiveRuns: ...
    @property
    def history(self) -> History | None: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def secrets(self) -> SecretStore: ...
    @property
    def registry_factory(self) -> RegistryFactory: ...
    @property
    def conversation_id(self) -> int | None: ...
    @property
    def usage(self) -> UsageWiring: ...  # each answer's footer
    def chat_settings(self) -> ChatSettings: ...
    def start_run(self, text: str | None, *, placement: Placement | None = None, chat: ChatSettings | None = None,
                  attachments: list[PreparedAttachment] | None = None) -> None: ...
    def refresh_conversations(self) -> None: ...
    def open_conversation(self, conversation_id: int) -> None: ...


class ChatActions(QObject):
    def __init__(self, session: ActionsSession, describe_problem: Callable[[Exception], str] = str, *,
                 parent: QObject) -> None:
        super().__init__(parent)  # the session, whose life they share
        self.session = session
        self.describe_problem = describe_problem
        window = session.window
        self.actions = MessageActions(window.chat_view, window)
        self.actions.answer_again.connect(self.answer_again)
        self.actions.edit_question.connect(self.edit_question)
        self.actions.edit_answer.connect(self.edit_answer)
        self.actions.continue_answer.connect(self.continue_answer)
        self.actions.switch_version.connect(self.switch_version)
        self.actions.delete_pair.connect(self.delete_pair)
        self.actions.is_busy = lambda: session.controller.is_running(session.conversation_id)

    # --- what the view shows ----------------------------------------------------------------------------
    def shown_messages(self, conversation_id: int) -> list[ChatMessage]:
        """The conversation's current branch as the chat shows it, with ids and versions."""
        history = self.session.history
        assert history is not None
        records = history.branch(conversation_id)
        registry = self.session.registry_factory(self.session.settings, self.session.secrets.lookup)

        def visibility_of(name: str) -> str:
            tool = registry.get(name)
            return tool.visibility if tool is not None else "primary"

        store = history.attachments
        return chat_messages(records, visibility_of, versions(history, conversation_id),
                             lambda record: stored_views(store, record),
                             footers=self.session.usage.footers(conversation_id),  # each answer's tokens and cost
                             run_errors=stored_run_errors(history, conversation_id))

    def reload(self, *, keep_errors: bool = False) -> None:
        """Show the open conversation's current branch again; ``keep_errors``: with the errors shown after its
        last question (a failed run's error is not a stored message)."""
        session = self.session
        if session.history is None or session.conversation_id is None:
            return
        view = session.window.chat_view
        errors: list[ChatMessage] = []
        if keep_errors:
            for message in reversed(view.messages()):
                if message.role == "user":
                    break
                if message.role == "error":
                    errors.insert(0, message)
        try:
            shown = self.shown_messages(session.conversation_id)
        except PROBLEMS as problem:
            session.window.show_error_in_chat(str(problem))
            return
        said = {m.error for m in shown if m.status == "error" and m.error}  # in the answer's cut-off line already
        messages = shown + [e for e in errors if e.text not in said]
        if not messages:  # its only question deleted: shown as a new chat is (hint, empty panes), not blank
            session.open_conversation(session.conversation_id)
            return
        view.set_messages(messages)
        self.actions.reset()

    def after_run(self) -> None:
        """A run ended: the streamed messages get their ids and versions (the errors it showed stay)."""
        self.reload(keep_errors=True)

    def set_models(self, models: list[tuple[str, str]]) -> None:
        self.actions.set_models(models)

    # --- the actions ------------------------------------------------------------------------------------
    def _ready(self) -> bool:
        session = self.session
        if session.controller.is_running(session.conversation_id):  # one run per conversation
            session.window.statusBar().showMessage("Stop the running answer first.", STATUS_MS)
            return False
        return session.history is not None and session.conversation_id is not None

    def _run(self, text: str | None, placement: Placement, provider: str = "", model: str = "", *,
             attachments: list[PreparedAttachment] | None = None) -> bool:
        session = self.session
        chat = session.chat_settings()
        if provider:
            chat = replace(chat, provider=provider, model=model or None)
        session.window.send_refusal.clear()
        try:
            session.start_run(text, placement=placement, chat=chat, attachments=attachments)
        except PROBLEMS as problem:
            # refused before anything ran (no key, no model): above the composer like a refused send, not in
            # the chat under the last answer, which did not fail
            session.window.send_refusal.show_refusal(self.describe_problem(problem))
            return False
        return True

    def answer_again(self, question_id: int, provider: str, model: str) -> None:
        """Regenerate, or retry after an error: a new answer beside the others (the same or another model)."""
        from app.runs.chat_recording import Placement

        if self._ready():
            self._run(None, Placement("answer", question_id), provider, model)

    def edit_question(self, question_id: int, text: str, kept: list[str] | None = None) -> None:
        """The edited question is sent as a new version beside the original, with the original's attachments
        the user kept (``kept``: their keys; app/session/question_attachments.py), not the composer's draft. If it
        cannot be sent, the text goes into the composer so nothing typed is lost."""
        from app.runs.chat_recording import Placement

        if not self._ready():
            self.session.window.composer.restore_text(text)
            return
        history, conversation_id = self.session.history, self.session.conversation_id
        assert history is not None and conversation_id is not None
        try:
            attachments = kept_attachments(history, conversation_id, question_id, kept or [])
        except PROBLEMS as problem:  # the question's files cannot be read: nothing was sent
            self.session.window.send_refusal.show_refusal(self.describe_problem(problem))
            self.session.window.composer.restore_text(text)
            return
        if not self._run(text, Placement("edit", question_id), attachments=attachments):
            self.session.window.composer.restore_text(text)

    def continue_answer(self, answer_id: int) -> None:
        """The model goes on from where the answer stopped; the continuation joins it."""
        from app.runs.chat_recording import Placement

        if not self._ready():
            return
        history, conversation_id = self.session.history, self.session.conversation_id
        assert history is not None and conversation_id is not None
        try:
            last = chain(history.branch(conversation_id), answer_id)[-1].id
        except PROBLEMS as problem:
            self.session.window.show_error_in_chat(str(problem))
            return
        self._run(None, Placement("continue", last))

    def _change(self, what: str, change: Callable[[History, int], object]) -> bool:
        """Make a change to the open conversation's tree, then show the result."""
        if not self._ready():
            return False
        history, conversation_id = self.session.history, self.session.conversation_id
        assert history is not None and conversation_id is not None
        try:
            change(history, conversation_id)
        except PROBLEMS as problem:
            self.session.window.show_error_in_chat(f"Could not {what}: {problem}")
            return False
        self.reload()
        self.session.refresh_conversations()
        return True

    def edit_answer(self, answer_id: int, text: str) -> None:
        """The user's version of an answer is kept beside the original; the model sees it from now on. If it
        cannot be saved, the text goes into the composer so nothing typed is lost."""
        if not self._change("save the edited answer", lambda h, c: add_edited_answer(h, c, answer_id, text)):
            self.session.window.composer.restore_text(text)

    def switch_version(self, message_id: int, step: int) -> None:
        self._change("switch versions", lambda h, c: switch_version(h, c, message_id, step))

    def delete_pair(self, message_id: int) -> None:
        self._change("delete the messages", lambda h, c: delete_pair(h, c, message_id))
