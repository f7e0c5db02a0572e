"""The conversation history: conversations, their message trees and branches, runs and run events.

Messages form a tree: each has a parent (None for the first message). Editing a user message or regenerating an
answer adds a sibling, so the old branch is kept. A conversation remembers its current leaf; the current branch
is the path from the root to that leaf. System prompts live on the conversation. Tool calls and their outputs
hang off the assistant message that made them. Runs are written by app/storage/run_recorder.py.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from app.attachments.store import AttachmentStore
from app.storage import attachments as attachment_rows
from app.storage.connection import Database
from app.storage.damaged_values import damaged_event
from app.storage.database import BUSY_TIMEOUT_S, open_database
from app.storage.errors import guarded
from app.storage.inserted import inserted_id
from app.storage.integrity import MAX_TIME_MS, MIN_TIME_MS, DamagedDatabaseError, check_value, read_record
from app.storage.records import (
    AttachmentRecord,
    Conversation,
    ConversationSummary,
    ListedConversation,
    MessageRecord,
    MessageRole,
    RunRecord,
    ToolCallRecord,
    ToolOutputRecord,
    loads_or_none,
)
from app.storage.recovery import process_alive
from app.storage.transactions import write_transaction
from orchestration.bounded_json import loads_bounded
from orchestration.redaction import cut_redacted, redact_key_shaped, replace_secrets

R = TypeVar("R")

# Titles made from a first message are cut to this many characters.
TITLE_CHARS = 80
LISTED_IDS = 500  # ids in one query of listed_conversations (SQLite allows 32,766 parameters; a screen is ~40)


class NotFoundError(LookupError):
    """No conversation or message with that id; the message says which."""


@dataclass(frozen=True)
class ResumePoint:
    """Where the next message of a conversation goes: after ``message_id`` (None: as its first message)."""

    conversation_id: int
    message_id: int | None


def now_ms() -> int:
    return int(time.time() * 1000)


def clean_title(title: str) -> str:
    """A title as stored: trimmed, with anything shaped like an API key replaced (titles are listed, searched
    and exported everywhere)."""
    return redact_key_shaped(title.strip())


def title_from_text(text: str, secrets: Iterable[str] = ()) -> str:
    """The first non-blank line of a message, with ``secrets`` (the key in use) and key-shaped strings replaced
    before it is cut to TITLE_CHARS, and cut outside any key, so not even the start of a key is kept."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    line = clean_title(replace_secrets(line, secrets))
    if len(line) <= TITLE_CHARS:
        return line
    return cut_redacted(line, TITLE_CHARS - 1, secrets).text.rstrip() + "…"


class History:
    def __init__(self, db: Database, path: Path) -> None:
        self.db = db
        self.path = path
        self.attachments = AttachmentStore.beside(path)

    @classmethod
    def open(cls, path: Path, *, busy_timeout: float = BUSY_TIMEOUT_S) -> History:
        return cls(open_database(path, busy_timeout=busy_timeout), path)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- reading rows, telling damage from a wrong id (integrity.py) ---------------------------------------
    def _record(self, table: str, row: dict[str, Any], build: Callable[[], R]) -> R:
        return read_record(self.path, table, row, build)

    def _row_record(self, table: str, row: dict[str, Any], build: Callable[[dict[str, Any]], R]) -> R:
        """``_record`` for a record built from the row alone (a list's rows, one call each)."""
        return read_record(self.path, table, row, lambda: build(row))

    def _missing_conversation(self, conversation_id: int) -> Exception:
        """No row for this id: a wrong id (NotFoundError), unless messages or runs still point to it."""
        orphans = self.db.execute(
            "SELECT EXISTS (SELECT 1 FROM messages WHERE conversation_id = ?) "
            "OR EXISTS (SELECT 1 FROM runs WHERE conversation_id = ?)", [conversation_id, conversation_id]).fetchone()
        if orphans[0]:
            return DamagedDatabaseError(self.path, f"conversation {conversation_id} has messages but its row in the "
                                                   "conversations table is missing")
        return NotFoundError(f"there is no conversation {conversation_id}")

    def _current_leaf(self, conversation: Conversation) -> int | None:
        """The conversation's current leaf, which must be one of its messages."""
        leaf = conversation.current_leaf_id
        if leaf is not None:
            row = self.db.execute("SELECT conversation_id FROM messages WHERE id = ?", [leaf]).fetchone()
            if row is None or row[0] != conversation.id:
                raise DamagedDatabaseError(self.path, f"conversation {conversation.id} continues after message "
                                                      f"#{leaf}, which is not one of its messages")
        return leaf

    # --- conversations -----------------------------------------------------------------------------------
    @guarded("create a conversation")
    def create_conversation(self, title: str = "", *, provider: str | None = None, model: str | None = None,
                            system_prompt: str | None = None) -> int:
        now = now_ms()
        cursor = self.db.execute(
            "INSERT INTO conversations (title, created_at, updated_at, provider, model, system_prompt) "
            "VALUES (?, ?, ?, ?, ?, ?)", [clean_title(title), now, now, provider, model, system_prompt])
        return inserted_id(cursor)

    @guarded("read the conversation")
    def conversation(self, conversation_id: int) -> Conversation:
        rows = list(self.db.query("SELECT * FROM conversations WHERE id = ?", [conversation_id]))
        if not rows:
            raise self._missing_conversation(conversation_id)
        return self._record("conversations", rows[0], lambda: Conversation.from_row(rows[0]))

    @guarded("list conversations")
    def list_conversations(self, *, include_archived: bool = False) -> list[ConversationSummary]:
        where = "" if include_archived else "WHERE c.archived = 0"
        rows = self.db.query(
            "SELECT c.id, c.title, c.updated_at, c.pinned, c.archived, "
            "(SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id) AS message_count "
            f"FROM conversations c {where} ORDER BY c.pinned DESC, c.updated_at DESC, c.id DESC")
        return [self._row_record("conversations", r, lambda r: ConversationSummary(
            id=r["id"], title=r["title"], updated_at=r["updated_at"], message_count=r["message_count"],
            pinned=bool(r["pinned"]), archived=bool(r["archived"]))) for r in rows]

    @guarded("list conversations")
    def conversation_list(self) -> list[ListedConversation]:
        """The window's list: every conversation not archived, pinned first, then the most recently updated.

        Lighter than ``list_conversations`` (no message counts, no record per row, about a quarter of its time
        at 10,000 rows, issue 17): the rows' types are checked by one SQL count instead of row by row in
        Python; when it finds a row that is not what Parley writes, the list is read the careful way, which
        names the damage (DamagedDatabaseError)."""
        if self._damaged_listed_rows():
            return [ListedConversation(s.id, s.title, s.updated_at, s.pinned) for s in self.list_conversations()]
        return [ListedConversation(cid, title, updated_at, bool(pinned)) for cid, title, updated_at, pinned in
                self.db.execute("SELECT id, title, updated_at, pinned FROM conversations WHERE archived = 0 "
                                "ORDER BY pinned DESC, updated_at DESC, id DESC")]

    @guarded("list conversations")
    def conversation_order(self) -> list[int]:
        """The ids of ``conversation_list``, in its order: what the window's list starts from (issue 17: a third
        of the whole rows' time at 10,000), reading each row's details when it is shown
        (``listed_conversations``). Checked as ``conversation_list`` is."""
        if self._damaged_listed_rows():
            return [s.id for s in self.list_conversations()]
        return [cid for (cid,) in self.db.execute("SELECT id FROM conversations WHERE archived = 0 "
                                                  "ORDER BY pinned DESC, updated_at DESC, id DESC")]

    @guarded("list conversations")
    def listed_conversations(self, ids: list[int]) -> list[ListedConversation]:
        """The rows of ``conversation_list`` with these ids, in no particular order (at most ``LISTED_IDS`` ids a
        query); archived and deleted ones are left out. A row that is not what Parley writes is named
        (DamagedDatabaseError), as the whole list names it."""
        found: list[ListedConversation] = []
        for start in range(0, len(ids), LISTED_IDS):
            chunk = ids[start:start + LISTED_IDS]
            rows = self.db.execute(
                "SELECT id, title, updated_at, pinned FROM conversations WHERE archived = 0 AND id IN "
                f"({', '.join('?' * len(chunk))})", chunk).fetchall()
            for cid, title, updated_at, pinned in rows:
                if type(title) is bytes:  # damaged by another program: shown marked (damaged_values.py)
                    title = check_value(self.path, "conversations", "title", title, cid)
                if not (type(cid) is int and type(title) is str and type(updated_at) is int
                        and MIN_TIME_MS <= updated_at <= MAX_TIME_MS and pinned in (0, 1)):
                    self._damaged_listed_rows(raise_=True)
                found.append(ListedConversation(cid, title, updated_at, bool(pinned)))
        return found

    def _damaged_listed_rows(self, *, raise_: bool = False) -> bool:
        """Whether a listed row is not what Parley writes (one SQL count); with ``raise_``, the careful read names
        it (DamagedDatabaseError)."""
        damaged = self.db.execute(
            "SELECT COUNT(*) FROM conversations WHERE archived = 0 AND NOT (typeof(id) = 'integer' "
            "AND typeof(title) = 'text' AND typeof(updated_at) = 'integer' AND updated_at BETWEEN ? AND ? "
            "AND typeof(pinned) = 'integer' AND typeof(archived) = 'integer')",
            [MIN_TIME_MS, MAX_TIME_MS]).fetchone()[0]
        if damaged and raise_:
            self.list_conversations()
        return bool(damaged)

    def _update_conversation(self, conversation_id: int, **fields: Any) -> None:
        """Change details; ``updated_at`` is left alone (it tracks new messages, which order the list)."""
        assignments = ", ".join(f"{name} = ?" for name in fields)
        cursor = self.db.execute(f"UPDATE conversations SET {assignments} WHERE id = ?",
                                 [*fields.values(), conversation_id])
        if cursor.rowcount == 0:
            raise self._missing_conversation(conversation_id)

    @guarded("rename the conversation")
    def rename(self, conversation_id: int, title: str) -> None:
        self._update_conversation(conversation_id, title=clean_title(title))

    @guarded("update the conversation")
    def set_pinned(self, conversation_id: int, pinned: bool) -> None:
        self._update_conversation(conversation_id, pinned=int(pinned))

    @guarded("update the conversation")
    def set_archived(self, conversation_id: int, archived: bool) -> None:
        self._update_conversation(conversation_id, archived=int(archived))

    @guarded("update the conversation")
    def set_details(self, conversation_id: int, *, provider: str | None = None, model: str | None = None,
                    system_prompt: str | None = None) -> None:
        """Record the provider, model or system prompt used from now on (only the ones given)."""
        fields = {k: v for k, v in (("provider", provider), ("model", model), ("system_prompt", system_prompt))
                  if v is not None}
        if fields:
            self._update_conversation(conversation_id, **fields)

    @guarded("delete the conversation")
    def delete(self, conversation_id: int) -> None:
        """Delete a conversation with its messages, tool calls, runs and run events, and the attached files no
        other conversation uses."""
        with write_transaction(self.db):
            addresses = attachment_rows.addresses_of(self.db, conversation_id)
            cursor = self.db.execute("DELETE FROM conversations WHERE id = ?", [conversation_id])
            if cursor.rowcount == 0:
                raise self._missing_conversation(conversation_id)
        attachment_rows.remove_unreferenced(self.db, self.attachments, addresses)

    # --- messages and branches ---------------------------------------------------------------------------
    @guarded("read the conversation")
    def resume_point(self, conversation_id: int) -> ResumePoint:
        """Where a new message continues the conversation: after the current leaf, unless that belongs to a run
        another live Parley process is still answering; then beside that run's question (a new branch), so two
        chats on one conversation at once never put one's message inside the other's run."""
        leaf = self._current_leaf(self.conversation(conversation_id))
        busy = {run_id: question for run_id, question, pid in self.db.execute(
            "SELECT id, user_message_id, owner_pid FROM runs WHERE conversation_id = ? AND status = 'running'",
            [conversation_id]) if pid != os.getpid() and process_alive(pid)}
        questions = set(busy.values())
        seen: set[int] = set()
        while leaf is not None and leaf not in seen:  # up past their answers and their question
            seen.add(leaf)
            row = self.db.execute("SELECT parent_id, run_id FROM messages WHERE id = ?", [leaf]).fetchone()
            if row is None or not (leaf in questions or row[1] in busy):
                break
            leaf = row[0]
        return ResumePoint(conversation_id, leaf)

    @guarded("save the message")
    def add_message(self, conversation_id: int, role: MessageRole, content: str) -> int:
        """Append a complete message after the conversation's current leaf (read in the same transaction); it
        becomes the leaf."""
        with write_transaction(self.db):
            parent = self.conversation(conversation_id).current_leaf_id
            now = now_ms()
            cursor = self.db.execute(
                "INSERT INTO messages (conversation_id, parent_id, role, content, status, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, 'complete', ?, ?)", [conversation_id, parent, role, content, now, now])
            message_id = inserted_id(cursor)
            self.db.execute("UPDATE conversations SET current_leaf_id = ?, updated_at = ? WHERE id = ?",
                            [message_id, now, conversation_id])
        return message_id

    @guarded("read the message")
    def message(self, message_id: int) -> MessageRecord:
        rows = list(self.db.query("SELECT * FROM messages WHERE id = ?", [message_id]))
        if not rows:
            raise NotFoundError(f"there is no message {message_id}")
        calls = self._tool_calls([message_id]).get(message_id, ())
        files = self._attachments([message_id]).get(message_id, ())
        return self._record("messages", rows[0], lambda: MessageRecord.from_row(rows[0], calls, files))

    def _tool_calls(self, message_ids: Iterable[int]) -> dict[int, tuple[ToolCallRecord, ...]]:
        ids = list(message_ids)
        found: dict[int, list[ToolCallRecord]] = {}
        for start in range(0, len(ids), 500):  # keep under SQLite's bound-parameter limit
            chunk = ids[start:start + 500]
            marks = ", ".join("?" * len(chunk))
            rows = self.db.query(
                "SELECT c.*, o.status AS o_status, o.content AS o_content, o.duration_ms AS o_duration_ms, "
                "o.truncated AS o_truncated, o.data AS o_data, o.tool_call_id AS o_id FROM tool_calls c "
                f"LEFT JOIN tool_outputs o ON o.tool_call_id = c.id WHERE c.message_id IN ({marks}) "
                "ORDER BY c.message_id, c.position", chunk)
            for r in rows:
                found.setdefault(r["message_id"], []).append(self._tool_call(r))
        return {k: tuple(v) for k, v in found.items()}

    def _tool_call(self, r: dict[str, Any]) -> ToolCallRecord:
        """A row of tool_calls joined with its output (``o_`` columns)."""
        o = {k[2:]: v for k, v in r.items() if k.startswith("o_")}
        output = None
        if o["id"] is not None:  # built from the checked copy (a BLOB in it is replaced by its shown text)
            o = {**o, "id": r["id"]}
            output = self._record("tool_outputs", o, lambda: ToolOutputRecord(
                status=o["status"], content=o["content"], duration_ms=o["duration_ms"],
                truncated=bool(o["truncated"]), data=loads_or_none(o["data"])))
        c = {k: v for k, v in r.items() if not k.startswith("o_")}
        return self._record("tool_calls", c, lambda: ToolCallRecord(
            id=c["id"], message_id=c["message_id"], position=c["position"], call_id=c["call_id"], name=c["name"],
            arguments=c["arguments"], text_offset=c["text_offset"], output=output))

    def _attachments(self, message_ids: Iterable[int]) -> dict[int, tuple[AttachmentRecord, ...]]:
        found = attachment_rows.rows_for(self.db, list(message_ids))
        return {message_id: tuple(self._row_record("message_attachments", r, attachment_rows.record_from_row)
                                  for r in rows) for message_id, rows in found.items()}

    def _records(self, rows: Iterable[dict[str, Any]]) -> list[MessageRecord]:
        rows = list(rows)
        calls = self._tool_calls(r["id"] for r in rows)
        files = self._attachments(r["id"] for r in rows if r["role"] == "user")
        return [self._row_record("messages", r, lambda r: MessageRecord.from_row(r, calls.get(r["id"], ()),
                                                                                files.get(r["id"], ())))
                for r in rows]

    @guarded("read the conversation")
    def branch(self, conversation_id: int, leaf_id: int | None = None) -> list[MessageRecord]:
        """The messages from the root to ``leaf_id`` (default: the current leaf), oldest first."""
        if leaf_id is None:
            leaf_id = self._current_leaf(self.conversation(conversation_id))
            if leaf_id is None:
                return []
        rows = self.db.query(
            "WITH RECURSIVE path(id, depth) AS (SELECT id, 0 FROM messages WHERE id = ? AND conversation_id = ? "
            "UNION ALL SELECT m.parent_id, path.depth + 1 FROM messages m JOIN path ON m.id = path.id "
            "WHERE m.parent_id IS NOT NULL) "
            "SELECT messages.* FROM path JOIN messages ON messages.id = path.id ORDER BY path.depth DESC",
            [leaf_id, conversation_id])
        return self._records(rows)

    @guarded("read the conversation")
    def all_messages(self, conversation_id: int) -> list[MessageRecord]:
        """Every message of every branch, in the order they were written."""
        return self._records(self.db.query("SELECT * FROM messages WHERE conversation_id = ? ORDER BY id",
                                           [conversation_id]))

    @guarded("read the conversation")
    def children(self, conversation_id: int, parent_id: int | None) -> list[MessageRecord]:
        """The replies to ``parent_id`` (None: the first messages); several means the conversation branches."""
        rows = self.db.query("SELECT * FROM messages WHERE conversation_id = ? AND parent_id IS ? ORDER BY id",
                             [conversation_id, parent_id])
        return self._records(rows)

    def message_in(self, conversation_id: int, message_id: int) -> MessageRecord:
        record = self.message(message_id)
        if record.conversation_id != conversation_id:
            raise NotFoundError(f"message {message_id} is not part of conversation {conversation_id}")
        return record

    def _set_leaf(self, conversation_id: int, leaf_id: int | None) -> None:
        self.db.execute("UPDATE conversations SET current_leaf_id = ?, updated_at = ? WHERE id = ?",
                        [leaf_id, now_ms(), conversation_id])

    @guarded("start a branch")
    def branch_from(self, conversation_id: int, message_id: int) -> int | None:
        """Make the next message a sibling of ``message_id`` (edit a message, regenerate an answer).

        The current leaf moves to the message's parent; the old branch stays. Returns the new leaf.
        """
        with write_transaction(self.db):
            record = self.message_in(conversation_id, message_id)
            self._set_leaf(conversation_id, record.parent_id)
        return record.parent_id

    @guarded("switch branches")
    def switch_branch(self, conversation_id: int, message_id: int) -> int:
        """Show the branch through ``message_id``: the leaf becomes its newest descendant. Returns that leaf."""
        with write_transaction(self.db):
            leaf = self.message_in(conversation_id, message_id).id
            while True:
                row = self.db.execute("SELECT MAX(id) FROM messages WHERE parent_id = ?", [leaf]).fetchone()
                if row[0] is None:
                    break
                leaf = int(row[0])
            self._set_leaf(conversation_id, leaf)
        return leaf

    # --- runs ------------------------------------------------------------------------------------------
    @guarded("read the runs")
    def runs(self, conversation_id: int) -> list[RunRecord]:
        rows = self.db.query("SELECT * FROM runs WHERE conversation_id = ? ORDER BY started_at, rowid",
                             [conversation_id])
        return [self._row_record("runs", r, RunRecord.from_row) for r in rows]

    @guarded("read the run events")
    def run_events(self, run_id: str) -> list[dict[str, Any]]:
        """The stored event stream of one run (redacted JSON objects, in order)."""
        rows = self.db.execute("SELECT seq, event FROM run_events WHERE run_id = ? ORDER BY seq", [run_id])
        events = []
        for seq, event in rows:
            if isinstance(event, bytes):
                events.append(damaged_event(self.path, run_id, seq, event))
                continue
            try:
                events.append(loads_bounded(event, what="a stored event"))
            except (ValueError, TypeError) as exc:
                raise DamagedDatabaseError(self.path, f"run_events row {run_id}/{seq} has text in event that is not "
                                                      f"JSON ({exc})") from exc
        return events
