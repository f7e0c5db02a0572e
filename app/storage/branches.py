"""The message actions' changes to a conversation tree: which versions a message has, moving between them,
an answer edited by the user (a new version), and deleting a question with its answer.

The window shows one bubble per answer although a run stores one assistant message per model call
(app/session/history_view.py), so an answer is named by its first stored message (its *anchor*) and spans the
assistant messages that follow it on the current branch (its *chain*). Versions of a message are its siblings:
the messages with the same parent and the same role, oldest first. Everything here keeps the old branches
(history.py's model); only ``delete_pair`` removes anything, and only what the user asked to delete.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.storage.errors import storage_errors
from app.storage.history import History, NotFoundError, now_ms
from app.storage.inserted import inserted_id
from app.storage.records import MessageRecord
from app.storage.transactions import write_transaction


@dataclass(frozen=True)
class Versions:
    """Where a message stands among its versions: ``position`` (1-based) of ``count``, and their ids."""

    position: int
    count: int
    ids: tuple[int, ...]


def versions(history: History, conversation_id: int) -> dict[int, Versions]:
    """Every message's versions, read in one query (the view asks for each message it shows)."""
    with storage_errors(history.path, "read the conversation"):
        rows = history.db.execute("SELECT id, parent_id, role FROM messages WHERE conversation_id = ? ORDER BY id",
                                  [conversation_id]).fetchall()
    groups: dict[tuple[int | None, str], list[int]] = {}
    for message_id, parent_id, role in rows:
        groups.setdefault((parent_id, role), []).append(message_id)
    found: dict[int, Versions] = {}
    for ids in groups.values():
        for index, message_id in enumerate(ids):
            found[message_id] = Versions(index + 1, len(ids), tuple(ids))
    return found


def chain(records: list[MessageRecord], anchor: int) -> list[MessageRecord]:
    """The messages one shown bubble holds on the branch ``records``: the anchor, and for an answer every
    assistant message after it (its model calls, and continuations after Stop)."""
    ids = [r.id for r in records]
    if anchor not in ids:
        raise NotFoundError(f"message {anchor} is not on the current branch")
    start = ids.index(anchor)
    if records[start].role == "user":
        return [records[start]]
    end = start
    while end + 1 < len(records) and records[end + 1].role == "assistant":
        end += 1
    return records[start:end + 1]


def switch_version(history: History, conversation_id: int, message_id: int, step: int) -> int | None:
    """Show the version ``step`` places away from ``message_id`` (-1: the previous one); returns the new leaf,
    or None when there is no version there (the first or the last already)."""
    record = history.message_in(conversation_id, message_id)
    ids = versions(history, conversation_id)[record.id].ids
    index = ids.index(record.id) + step
    if not 0 <= index < len(ids):
        return None
    return history.switch_branch(conversation_id, ids[index])


def add_edited_answer(history: History, conversation_id: int, anchor: int, text: str) -> int:
    """The user's version of an answer: a new assistant message beside ``anchor`` (same question), holding
    ``text``, which becomes the current leaf; the original answer stays as the other version. Tool calls are
    not copied: what the model sees next is the text the user wrote."""
    with storage_errors(history.path, "save the edited answer"), write_transaction(history.db):
        original = history.message_in(conversation_id, anchor)
        if original.role != "assistant":
            raise ValueError(f"message {anchor} is a question, not an answer")
        now = now_ms()
        cursor = history.db.execute(
            "INSERT INTO messages (conversation_id, parent_id, role, content, status, finish_reason, model, "
            "created_at, updated_at) VALUES (?, ?, 'assistant', ?, 'complete', 'edited', ?, ?, ?)",
            [conversation_id, original.parent_id, text, original.model, now, now])
        new_id = inserted_id(cursor)
        history.db.execute("UPDATE conversations SET current_leaf_id = ?, updated_at = ? WHERE id = ?",
                           [new_id, now, conversation_id])
    return new_id


def delete_pair(history: History, conversation_id: int, message_id: int) -> int | None:
    """Delete a question and its answers (``message_id`` is either). What followed the shown answer moves up
    to where the question was, so the conversation goes on without the pair; the other answers to the
    question, and what followed them, go with it. Returns the new current leaf."""
    with storage_errors(history.path, "delete the messages"), write_transaction(history.db):
        record = history.message_in(conversation_id, message_id)
        question = record if record.role == "user" else (
            history.message_in(conversation_id, record.parent_id) if record.parent_id is not None else None)
        if question is None or question.role != "user":
            raise ValueError(f"message {message_id} is not part of a question and its answer")
        branch = history.branch(conversation_id)
        on_branch = question.id in [r.id for r in branch]
        if on_branch:
            shown = chain(branch, question.id)
            after = branch.index(shown[0]) + 1
            if after < len(branch) and branch[after].role == "assistant":
                shown = chain(branch, branch[after].id)
            last: int | None = shown[-1].id
        else:
            last = None
        leaf = history.conversation(conversation_id).current_leaf_id
        db = history.db
        # What followed the pair is kept: its next messages now follow the question's parent.
        if last is not None:
            db.execute("UPDATE messages SET parent_id = ? WHERE parent_id = ?", [question.parent_id, last])
        db.execute("DELETE FROM messages WHERE id = ?", [question.id])  # its answers go with it (ON DELETE CASCADE)
        still_there = leaf is not None and db.execute("SELECT 1 FROM messages WHERE id = ?", [leaf]).fetchone()
        new_leaf = leaf if still_there else question.parent_id
        db.execute("UPDATE conversations SET current_leaf_id = ? WHERE id = ?", [new_leaf, conversation_id])
    return new_leaf
