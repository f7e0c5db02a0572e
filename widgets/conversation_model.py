"""The rows of the conversation list as a Qt list model: conversations, or search hits, or "No matches".

A model, not an item per row: filling it with 10,000 conversations is one sort and a reset (no Qt object per
row), and a row's text, time, tooltip and caret-notation title are worked out only when the view asks for them,
which it does for the rows on screen (bench/startup.py measures the fill and the scroll).

The window's list starts from its conversations' ids alone, in order (``set_order``, issue 17: reading 10,000
whole rows at start cost 25 to 60 ms): the row count, the scroll bar, the selection and the order are right from
the start, and a row's title, time and pin are read, ``BLOCK_ROWS`` rows at a time, when the view first asks
for them, which it does for the rows it paints.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any, Protocol

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, QPersistentModelIndex, Qt

from widgets.conversation_delegate import DETAIL_ROLE, PIECES_ROLE, PINNED_ROLE, TITLE_ROLE
from widgets.safe_text import plain_tooltip, visible_controls
from widgets.search_snippet import Piece, snippet_pieces, unmarked

ID_ROLE = Qt.ItemDataRole.UserRole
DISPLAY = int(Qt.ItemDataRole.DisplayRole)
NO_MATCHES = "No matches"
ANSWERING_TEXT = "Answering…"  # a conversation's second line while a run of it is going

Index = QModelIndex | QPersistentModelIndex
BLOCK_ROWS = 100  # rows read at a time when the list knows only ids: a few screens of the list


@dataclass(frozen=True)
class ConversationItem:
    id: int
    title: str
    updated_at: int  # epoch ms
    pinned: bool = False
    answering: bool = False  # a run of it is going (shown instead of the time)


@dataclass(frozen=True)
class SearchHit:
    conversation_id: int
    title: str
    snippet: str  # as the search found it: markdown, with the matched words between search_snippet's marks
    message_id: int | None = None  # the message that matched (None: the title); choosing the row opens it there
    attachment: bool = False  # the match is in a file attached to that message (the snippet starts with its name)


class ConversationRows(Protocol):
    """Where a list that knows only its conversations' ids reads their rows (the app reads the history; widgets
    never do)."""

    def rows(self, ids: list[int]) -> list[ConversationItem]:
        """The conversations with these ids, as the list shows them, in any order; one that is gone is left out."""
        ...


def when(epoch_ms: int) -> str:
    moment = datetime.datetime.fromtimestamp(epoch_ms / 1000)
    today = datetime.date.today()
    if moment.date() == today:
        return moment.strftime("%H:%M")
    if moment.year == today.year:
        return moment.strftime("%d %b")
    return moment.strftime("%Y-%m-%d")


def _keyed(roles: dict[Any, Any]) -> dict[int, Any]:
    return {int(role): value for role, value in roles.items()}


def _conversation_row(item: ConversationItem) -> dict[int, Any]:
    title = visible_controls(item.title) or "Untitled"
    detail = ANSWERING_TEXT if item.answering else when(item.updated_at)
    return _keyed({
        Qt.ItemDataRole.DisplayRole: f"{'Pinned: ' if item.pinned else ''}{title}\n{detail}",
        ID_ROLE: item.id, TITLE_ROLE: title, PINNED_ROLE: item.pinned, DETAIL_ROLE: detail,
        Qt.ItemDataRole.ToolTipRole: plain_tooltip(item.title),
    })


ATTACHED_PREFIX = "Attached "  # before an attachment hit's "name: snippet"


def _hit_row(hit: SearchHit) -> dict[int, Any]:
    pieces = snippet_pieces(hit.snippet)
    if hit.attachment:
        pieces = [Piece(ATTACHED_PREFIX, False), *pieces]
    title = visible_controls(hit.title) or "Untitled"
    text = unmarked(pieces)
    return _keyed({
        Qt.ItemDataRole.DisplayRole: f"{title}\n{text}",
        ID_ROLE: hit.conversation_id, TITLE_ROLE: title,
        PIECES_ROLE: [(piece.text, piece.marked) for piece in pieces],
        Qt.ItemDataRole.ToolTipRole: plain_tooltip(f"{hit.title}\n{text}" if hit.title else text),
    })


class ConversationModel(QAbstractListModel):
    """Conversations (pinned first, then newest) or search hits; each row's roles are built on first request."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # a row: a conversation, its id alone (its row not read yet), a search hit, or None ("No matches")
        self._sources: list[ConversationItem | int | SearchHit | None] = []
        self._rows: dict[int, dict[int, Any]] = {}
        self._listed: dict[int, ConversationItem] = {}  # the conversations read, by id (kept while searching)
        self._ids: list[int] = []  # the conversations' ids in order (not the hits')
        self._reader: ConversationRows | None = None

    def set_conversations(self, items: list[ConversationItem]) -> None:
        """All the conversations at once, in any order: sorted here."""
        ordered = sorted(items, key=lambda c: (not c.pinned, -c.updated_at))
        self._show([*ordered], [item.id for item in ordered], None)
        self._listed = {item.id: item for item in ordered}

    def set_order(self, ids: list[int], reader: ConversationRows) -> None:
        """The conversations' ids in the list's order; their rows are read from ``reader`` when first shown."""
        self._show([*ids], [*ids], reader)
        self._listed = {}

    def _show(self, sources: list[ConversationItem | int | SearchHit | None], ids: list[int],
              reader: ConversationRows | None) -> None:
        self.beginResetModel()
        self._sources = sources
        self._ids = ids
        self._reader = reader
        self._rows = {}
        self.endResetModel()

    def set_search_results(self, hits: list[SearchHit]) -> None:
        self.beginResetModel()
        self._sources = list(hits) if hits else [None]
        self._ids = []
        self._rows = {}
        self.endResetModel()

    def listed(self, conversation_id: int) -> ConversationItem | None:
        """The conversation as last read for the list (also while search hits are shown), if it was read."""
        return self._listed.get(conversation_id)

    def conversation_id(self, row: int) -> int | None:
        source = self._sources[row] if 0 <= row < len(self._sources) else None
        if isinstance(source, ConversationItem):
            return source.id
        if isinstance(source, int):
            return source
        return source.conversation_id if isinstance(source, SearchHit) else None

    def message_id(self, row: int) -> int | None:
        """The message a search hit's row matched (None for a conversation, a title hit or no row)."""
        source = self._sources[row] if 0 <= row < len(self._sources) else None
        return source.message_id if isinstance(source, SearchHit) else None

    def row_of(self, conversation_id: int) -> int | None:
        if self._ids and len(self._ids) == len(self._sources):  # the conversations, not hits
            return self._ids.index(conversation_id) if conversation_id in self._ids else None
        return next((row for row in range(len(self._sources)) if self.conversation_id(row) == conversation_id),
                    None)

    def ids_in_order(self) -> list[int]:
        return [cid for cid in (self.conversation_id(row) for row in range(len(self._sources))) if cid is not None]

    def _read_block(self, row: int) -> None:
        """Read the rows of the block holding ``row`` that are ids alone. A conversation gone since the ids were
        read (deleted elsewhere) shows as an untitled row until the list is shown again."""
        if self._reader is None:
            return
        start = row - row % BLOCK_ROWS
        wanted = {source: at for at, source in enumerate(self._sources[start:start + BLOCK_ROWS], start)
                  if isinstance(source, int)}
        found = {item.id: item for item in self._reader.rows(list(wanted))}
        for cid, at in wanted.items():
            item = found.get(cid) or ConversationItem(cid, "", 0)
            self._sources[at] = item
            self._listed[cid] = item

    # --- QAbstractListModel -------------------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else len(self._sources)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid() or self._sources[index.row()] is None:
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        # Called about 14 times per painted row (the style asks for every role): the cached row comes first.
        roles = self._rows.get(index.row())
        if roles is None:
            roles = self._build(index)
        return roles.get(role) if roles is not None else None

    def _build(self, index: Index) -> dict[int, Any] | None:
        if not index.isValid() or not 0 <= index.row() < len(self._sources):
            return None
        source = self._sources[index.row()]
        if isinstance(source, int):
            self._read_block(index.row())
            source = self._sources[index.row()]
        if source is None:
            roles = _keyed({Qt.ItemDataRole.DisplayRole: NO_MATCHES})
        elif isinstance(source, ConversationItem):
            roles = _conversation_row(source)
        elif isinstance(source, SearchHit):
            roles = _hit_row(source)
        else:
            return None  # an id its reader did not turn into a row: not expected
        self._rows[index.row()] = roles
        return roles
