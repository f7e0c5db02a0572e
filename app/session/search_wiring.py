"""History search in the window beyond the query itself: a hit chosen in the list opens its conversation at
the matching message (switching to that message's branch when it is not the one shown), and the attachments
stored before migration 6 are indexed in the background, one short batch per event-loop turn, so a large
history never blocks the window (app/storage/attachment_index.py). Kept out of app/session/chat_session.py,
which only creates it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer

from app.storage import History, StorageError

if TYPE_CHECKING:
    from app.session.live_runs import LiveRuns
    from widgets.main_window import MainWindow

log = logging.getLogger(__name__)

INDEX_START_DELAY_MS = 3_000  # the window's first seconds belong to its start and the user's first actions
INDEX_STEP_MS = 5  # between two batches: input and painting go first (a batch is a few ms: bench)
INDEX_RETRY_MS = 30_000  # after the database refused a batch (locked by another writer for the busy timeout)


class SearchSession(Protocol):
    """What the search wiring uses of the window's session (``ChatSession``, which creates it)."""

    @property
    def window(self) -> MainWindow: ...
    @property
    def controller(self) -> LiveRuns: ...
    @property
    def history(self) -> History | None: ...
    @property
    def conversation_id(self) -> int | None: ...
    def open_conversation(self, conversation_id: int) -> None: ...
    def search(self, text: str) -> None: ...


class SearchWiring(QObject):
    def __init__(self, session: SearchSession, *, parent: QObject) -> None:
        super().__init__(parent)  # the session, whose life it shares
        self.session = session
        self.indexed = 0  # attachment rows indexed by this window (for tests and the log)
        session.window.conversations.message_selected.connect(self.open_at_message)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._index_step)
        if session.history is not None and self._waiting():
            self._timer.start(INDEX_START_DELAY_MS)

    def _waiting(self) -> bool:
        """Whether attachments wait to be indexed (one row read; a problem is left to the first batch)."""
        from app.storage.attachment_index import pending_upto
        from app.storage.errors import storage_errors

        assert self.session.history is not None
        try:
            with storage_errors(self.session.history.path, "read the search index's state"):
                return pending_upto(self.session.history.db) > 0
        except StorageError:
            return True

    def stop(self) -> None:
        """Quitting: no batch after this (what is indexed stays; the rest is indexed at the next start)."""
        self._timer.stop()

    @property
    def indexing(self) -> bool:
        return self._timer.isActive()

    def _index_step(self) -> None:
        history = self.session.history
        if history is None:
            return
        from app.storage.attachment_index import index_batch
        from app.storage.errors import storage_errors

        try:
            with storage_errors(history.path, "index the attachments for search"):
                done = index_batch(history.db)
        except StorageError as problem:  # the environment (locked, disk full): try again later, say it in the log
            log.warning("attachment indexing paused: %s", problem)
            self._timer.start(INDEX_RETRY_MS)
            return
        self.indexed += done
        if done:
            self._timer.start(INDEX_STEP_MS)
            return
        if self.indexed:
            log.info("indexed %d earlier attachments for search", self.indexed)
            conversations = self.session.window.conversations
            if conversations.searching:  # the results shown may have missed them: search again
                self.session.search(conversations.search_box.text().strip())

    def open_at_message(self, conversation_id: int, message_id: int) -> None:
        """Open the conversation with ``message_id`` shown at the top of the chat."""
        session, history = self.session, self.session.history
        if history is None:
            return
        try:
            shown = {record.id for record in history.branch(conversation_id)}
            if message_id not in shown and not session.controller.is_running(conversation_id):
                history.switch_branch(conversation_id, message_id)
        except (StorageError, LookupError) as problem:
            session.window.show_error_in_chat(str(problem))
            return
        session.open_conversation(conversation_id)
        if session.conversation_id == conversation_id:
            session.window.chat_view.scroll_to_message(message_id)
