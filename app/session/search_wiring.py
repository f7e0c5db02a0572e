"""History search in the window beyond the query itself: a hit chosen in the list opens its conversation at
the matching message (switching to that message's branch when it is not the one shown), and the attachments
stored before migration 6 are indexed in the background, on a thread of its own over its own connection, so a
large history never blocks the window (app/storage/attachment_index.py); a search shown meanwhile is run again
when that is done. Kept out of app/session/chat_session.py, which only creates it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer, Signal

from app.storage import History, StorageError

if TYPE_CHECKING:
    from app.session.live_runs import LiveRuns
    from app.storage.attachment_index import BackgroundIndexer
    from widgets.main_window import MainWindow

log = logging.getLogger(__name__)

INDEX_START_DELAY_MS = 3_000  # the window's first seconds (2 cores) belong to its start and first actions


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
    _indexing_done = Signal(int)  # emitted on the indexer's thread, delivered on the window's

    def __init__(self, session: SearchSession, *, parent: QObject) -> None:
        super().__init__(parent)  # the session, whose life it shares
        self.session = session
        self.indexed = 0  # attachment rows indexed in the background by this window (for tests and the log)
        self._indexer: BackgroundIndexer | None = None
        self._finished = False
        session.window.conversations.message_selected.connect(self.open_at_message)
        self._indexing_done.connect(self._indexed)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self._start_indexing)
        if session.history is not None and self._waiting():
            self._timer.start(INDEX_START_DELAY_MS)

    def _waiting(self) -> bool:
        """Whether attachments wait to be indexed (one row read; a problem is left to the indexer)."""
        from app.storage.attachment_index import pending_upto
        from app.storage.errors import storage_errors

        assert self.session.history is not None
        try:
            with storage_errors(self.session.history.path, "read the search index's state"):
                return pending_upto(self.session.history.db) > 0
        except StorageError:
            return True

    @property
    def indexing(self) -> bool:
        """Until the indexer's end has reached the window (or it stopped, or died of a bug: logged)."""
        if self._timer.isActive():
            return True
        indexer = self._indexer
        return indexer is not None and not self._finished and (indexer.running or indexer.completed)

    def _start_indexing(self) -> None:
        history = self.session.history
        if history is None:
            return
        from app.storage.attachment_index import BackgroundIndexer

        self._indexer = BackgroundIndexer(history.path, self._indexing_done.emit)
        self._indexer.start()

    def stop(self) -> None:
        """Quitting: no batch after the current one (what is indexed stays; the rest at the next start)."""
        self._timer.stop()
        self._finished = True
        if self._indexer is not None:
            self._indexer.stop()

    def _indexed(self, rows: int) -> None:
        self.indexed = rows
        self._finished = True
        log.info("indexed %d earlier attachments for search", rows)
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
