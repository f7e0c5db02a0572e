"""The window's conversation list from the history: the ids in order at once, each row when it is shown (issue 17).

Reading every conversation whole when the window opened cost 25 to 60 ms with 10,000 of them (the rows, a
Python object per row twice over, the sort), all on the way to "ready". The list now starts from the ids alone
(``History.conversation_order``: one sorted read of integers), which gives the row count, the scroll bar, the
order and the selection; the title, time and pin of a row are read, a block of rows at a time
(widgets/conversation_model.py), when the view first paints it. Search is not affected: it reads its hits
itself (app/storage/search.py).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer

from app.storage import History, StorageError
from widgets.conversation_list import ConversationItem, ConversationList


class HistoryRows:
    """Rows of the list read from ``history``; ``running`` says whether a conversation has a run going (its row
    says "Answering…"). Rows that cannot be read are reported and left out (the model shows them untitled); rows
    are read while the list paints, so the report waits for the next event-loop turn."""

    def __init__(self, history: History, running: Callable[[int], bool], report: Callable[[str], None]) -> None:
        self.history = history
        self.running = running
        self.report = report

    def rows(self, ids: list[int]) -> list[ConversationItem]:
        if not self.history.db.is_open():  # the session has ended (the window may still be painted once more)
            return []
        try:
            listed = self.history.listed_conversations(ids)
        except StorageError as problem:
            QTimer.singleShot(0, lambda text=str(problem): self.report(text))
            return []
        return [ConversationItem(c.id, c.title, c.updated_at, c.pinned, self.running(c.id)) for c in listed]


def show_conversations(conversations: ConversationList, history: History, running: Callable[[int], bool],
                       selected: int | None, report: Callable[[str], None]) -> None:
    """Show the history's conversations in ``conversations``, ``selected`` selected; a history that cannot be
    read is reported and the list left as it is."""
    try:
        ids = history.conversation_order()
    except StorageError as problem:
        report(str(problem))
        return
    conversations.show_order(ids, HistoryRows(history, running, report), selected=selected)
