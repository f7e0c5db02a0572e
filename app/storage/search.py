"""Full-text search over message content, conversation titles and attached files' names and text (SQLite FTS5,
kept in sync by triggers; attachments stored before migration 6 are indexed by app/storage/attachment_index.py).

The user's words are quoted before they reach FTS5, so punctuation and FTS operators in a query cannot cause a
syntax error; all words must match (a trailing ``*`` keeps prefix search). Results carry a snippet with the
matching words between markers. Stemming is English (porter), diacritics are ignored.

Stored text that is not UTF-8 (a damaged or hand-edited database, a row another program wrote) is read with
U+FFFD in place of each bad byte, in titles, messages and attached files alike, instead of failing the whole
search: the user still finds the rest, and the damaged row shows where its text was lost (every history
connection reads text that way: app/storage/text_safety.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from app.storage.errors import guarded
from app.storage.history import History
from app.storage.integrity import check_value

DEFAULT_SEARCH_LIMIT = 20
MAX_SEARCH_LIMIT = 500
# Words of context in a snippet.
SNIPPET_WORDS = 12
SNIPPET_ELLIPSIS = "…"


class SearchQueryError(ValueError):
    pass


@dataclass(frozen=True)
class SearchHit:
    conversation_id: int
    conversation_title: str
    message_id: int | None  # None when the conversation's title matched
    role: str | None
    snippet: str  # an attachment's: its name, then ": " and a snippet of its text when the text matched
    created_at: int
    attachment_id: int | None = None  # the attached file that matched (of message ``message_id``)
    attachment_name: str | None = None


def fts_query(text: str) -> str:
    """The user's words as an FTS5 query: every word quoted, all required, ``word*`` kept as a prefix search."""
    terms = []
    for word in text.split():
        prefix = word.endswith("*")
        word = word.rstrip("*")
        if not re.search(r"\w", word):
            continue
        terms.append('"' + word.replace('"', '""') + '"' + ("*" if prefix else ""))
    if not terms:
        raise SearchQueryError("the search has no words to look for")
    return " ".join(terms)


class HistorySearch:
    def __init__(self, history: History) -> None:
        self.history = history
        self.path = history.path

    def _check(self, *values: tuple[str, int, str, object]) -> list[Any]:
        """The values a hit shows, as shown: they must fit their columns (else DamagedDatabaseError), a BLOB in a
        text column is shown marked (integrity.py)."""
        return [check_value(self.path, table, column, value, row_id) for table, row_id, column, value in values]

    @guarded("search the history")
    def search(self, text: str, *, limit: int = DEFAULT_SEARCH_LIMIT, marks: tuple[str, str] = ("**", "**")
               ) -> list[SearchHit]:
        """Matching titles first, then messages and attached files together, best match first; at most ``limit``
        hits."""
        if not 1 <= limit <= MAX_SEARCH_LIMIT:
            raise SearchQueryError(f"the result limit must be between 1 and {MAX_SEARCH_LIMIT}")
        query = fts_query(text)
        return self._search(query, limit, marks)

    def _search(self, query: str, limit: int, marks: tuple[str, str]) -> list[SearchHit]:
        db = self.history.db
        hits: list[SearchHit] = []
        titles = db.execute(
            "SELECT c.id, c.title, c.created_at, snippet(conversations_fts, 0, ?, ?, ?, ?) FROM conversations_fts "
            "JOIN conversations c ON c.id = conversations_fts.rowid WHERE conversations_fts MATCH ? "
            "ORDER BY bm25(conversations_fts) LIMIT ?",
            [marks[0], marks[1], SNIPPET_ELLIPSIS, SNIPPET_WORDS, query, limit])
        for r in titles:
            title, _ = self._check(("conversations", r[0], "title", r[1]), ("conversations", r[0], "created_at", r[2]))
            hits.append(SearchHit(conversation_id=r[0], conversation_title=title, message_id=None, role=None,
                                  snippet=r[3], created_at=r[2]))
        rest = limit - len(hits)
        found: list[tuple[float, SearchHit]] = []
        messages = db.execute(
            "SELECT m.id, m.conversation_id, c.title, m.role, m.created_at, "
            "snippet(messages_fts, 0, ?, ?, ?, ?), bm25(messages_fts) FROM messages_fts "
            "JOIN messages m ON m.id = messages_fts.rowid JOIN conversations c ON c.id = m.conversation_id "
            "WHERE messages_fts MATCH ? ORDER BY bm25(messages_fts) LIMIT ?",
            [marks[0], marks[1], SNIPPET_ELLIPSIS, SNIPPET_WORDS, query, rest])
        for r in messages:
            title, _ = self._check(("conversations", r[1], "title", r[2]), ("messages", r[0], "created_at", r[4]))
            found.append((r[6], SearchHit(conversation_id=r[1], conversation_title=title, message_id=r[0], role=r[3],
                                          snippet=r[5], created_at=r[4])))
        found.extend(self._attachments(query, rest, marks))
        found.sort(key=lambda ranked: ranked[0])  # bm25: lower is better
        hits.extend(hit for _rank, hit in found)
        return hits[:limit]

    def _attachments(self, query: str, limit: int, marks: tuple[str, str]) -> list[tuple[float, SearchHit]]:
        """Attached files whose name or (indexed) text matches, each shown as its name and a snippet."""
        found = []
        for r in self._attachment_rows(query, limit, marks):
            shown_name, title, _ = self._check(("message_attachments", r[0], "name", r[1]),
                                               ("conversations", r[3], "title", r[4]),
                                               ("messages", r[2], "created_at", r[6]))
            name, text = r[7], r[8]
            snippet = f"{name}: {text}" if marks[0] in text else name
            found.append((r[9], SearchHit(conversation_id=r[3], conversation_title=title, message_id=r[2], role=r[5],
                                          snippet=snippet, created_at=r[6], attachment_id=r[0],
                                          attachment_name=shown_name)))
        return found

    def _attachment_rows(self, query: str, limit: int, marks: tuple[str, str]) -> list[tuple[Any, ...]]:
        return self.history.db.execute(
            "SELECT a.id, attachments_fts.name, m.id, m.conversation_id, c.title, m.role, m.created_at, "
            "highlight(attachments_fts, 0, ?, ?), snippet(attachments_fts, 1, ?, ?, ?, ?), bm25(attachments_fts) "
            "FROM attachments_fts JOIN message_attachments a ON a.id = attachments_fts.rowid "
            "JOIN messages m ON m.id = a.message_id JOIN conversations c ON c.id = m.conversation_id "
            "WHERE attachments_fts MATCH ? ORDER BY bm25(attachments_fts) LIMIT ?",
            [marks[0], marks[1], marks[0], marks[1], SNIPPET_ELLIPSIS, SNIPPET_WORDS, query, limit]).fetchall()
