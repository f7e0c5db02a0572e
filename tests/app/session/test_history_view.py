"""Stored messages as the chat shows them: ids and versions for the message actions, an answer continued after
Stop shown as one answer in the state of its latest part, and the output-limit notice kept after reopening."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.session.history_view import LENGTH_NOTICE, chat_messages
from app.storage import History
from app.storage.branches import versions
from orchestration.tool_outcome import STOPPED_LABEL, describe


@pytest.fixture
def history(tmp_path: Path):
    with History.open(tmp_path / "history.db") as opened:
        yield opened


def answer(history: History, conversation: int, text: str, *, run: str, status: str = "complete",
           finish: str = "stop") -> int:
    history.db.execute("INSERT INTO runs (id, conversation_id, status, started_at) VALUES (?, ?, 'complete', 0)",
                       [run, conversation])
    message = history.add_message(conversation, "assistant", text)
    history.db.execute("UPDATE messages SET run_id = ?, status = ?, finish_reason = ? WHERE id = ?",
                       [run, status, finish, message])
    return message


def test_bubbles_carry_their_first_message_and_versions(history: History):
    conversation = history.create_conversation("t")
    question = history.add_message(conversation, "user", "Q")
    first = answer(history, conversation, "A", run="r1")
    history.branch_from(conversation, first)
    second = answer(history, conversation, "A again", run="r2")
    shown = chat_messages(history.branch(conversation), versions=versions(history, conversation))
    assert [(m.role, m.ref, m.versions) for m in shown] == [("user", question, None), ("assistant", second, (2, 2))]


def test_a_continued_answer_is_one_answer_in_the_state_of_its_end(history: History):
    conversation = history.create_conversation("t")
    history.add_message(conversation, "user", "Tell me about otter fur")
    first = answer(history, conversation, "Otters have the densest fur", run="r1", status="interrupted",
                   finish="cancelled")
    answer(history, conversation, " of any animal.", run="r2")
    (_, shown) = chat_messages(history.branch(conversation))
    assert shown.text == "Otters have the densest fur of any animal." and shown.status == "complete"
    assert shown.ref == first


def test_an_answer_cut_at_the_output_limit_says_so_after_reopening(history: History):
    conversation = history.create_conversation("t")
    history.add_message(conversation, "user", "Write a long poem")
    answer(history, conversation, "Roses are", run="r1", finish="length")
    history.add_message(conversation, "user", "Go on")
    answer(history, conversation, "red.", run="r2")
    assert [(m.role, m.text) for m in chat_messages(history.branch(conversation))] == [
        ("user", "Write a long poem"), ("assistant", "Roses are"), ("notice", LENGTH_NOTICE),
        ("user", "Go on"), ("assistant", "red.")]


def test_a_call_the_run_ended_before_reads_as_it_did_live(history: History):
    """The window reloads the chat from the database after a run; a call stopped while it waited for approval
    keeps saying so (before: "error")."""
    conversation = history.create_conversation("t")
    history.add_message(conversation, "user", "Read my notes")
    message = answer(history, conversation, "", run="r1", status="interrupted", finish="cancelled")
    history.db.execute("INSERT INTO tool_calls (message_id, position, call_id, name, arguments, text_offset) "
                       "VALUES (?, 0, 'c1', 'read_file', '{}', 0)", [message])
    (_, shown) = chat_messages(history.branch(conversation))
    (chip,) = shown.tools
    assert describe(chip.status, chip.result, chip.duration_ms).label == STOPPED_LABEL
