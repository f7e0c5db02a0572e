"""The message actions' tree changes over a real SQLite file: versions of a message, moving between them, an
edited answer kept beside the original, and deleting a question with its answer while what followed stays."""

from __future__ import annotations

import pytest

from app.storage import History
from app.storage.branches import add_edited_answer, delete_pair, switch_version, versions


def contents(history: History, conversation: int) -> list[str]:
    return [m.content for m in history.branch(conversation)]


def two_turns(history: History) -> tuple[int, list[int]]:
    conversation = history.create_conversation("t")
    ids = [history.add_message(conversation, role, text)
           for role, text in (("user", "Q1"), ("assistant", "A1"), ("user", "Q2"), ("assistant", "A2"))]
    return conversation, ids


def test_versions_are_siblings_of_the_same_role_oldest_first(history: History):
    conversation, (q1, _a1, q2, a2) = two_turns(history)
    history.branch_from(conversation, a2)
    a2b = history.add_message(conversation, "assistant", "A2 again")
    found = versions(history, conversation)
    assert (found[a2].position, found[a2].count) == (1, 2)
    assert (found[a2b].position, found[a2b].count) == (2, 2)
    assert found[q1].count == 1 and found[q2].count == 1


def test_switching_versions_moves_the_current_branch_and_stops_at_either_end(history: History):
    conversation, (_q1, _a1, q2, a2) = two_turns(history)
    history.branch_from(conversation, q2)
    history.add_message(conversation, "user", "Q2 edited")
    history.add_message(conversation, "assistant", "A2 edited")
    edited = history.branch(conversation)[2].id
    assert switch_version(history, conversation, edited, +1) is None, "already the newest"
    assert switch_version(history, conversation, edited, -1) == a2
    assert contents(history, conversation) == ["Q1", "A1", "Q2", "A2"]
    assert switch_version(history, conversation, q2, +1) is not None
    assert contents(history, conversation) == ["Q1", "A1", "Q2 edited", "A2 edited"]


def test_an_edited_answer_is_a_new_version_and_the_original_is_kept(history: History):
    conversation, (_q1, _a1, q2, a2) = two_turns(history)
    edited = add_edited_answer(history, conversation, a2, "A2, as I would put it")
    assert contents(history, conversation) == ["Q1", "A1", "Q2", "A2, as I would put it"]
    assert history.message(edited).parent_id == q2
    assert history.message(a2).content == "A2", "the original answer is not changed"
    assert versions(history, conversation)[edited].count == 2
    with pytest.raises(ValueError):
        add_edited_answer(history, conversation, q2, "not an answer")


def test_deleting_a_pair_keeps_what_followed_it(history: History):
    conversation, (_q1, a1, q2, a2) = two_turns(history)
    leaf = delete_pair(history, conversation, a1)  # from the answer: its question goes too
    assert leaf == a2
    assert contents(history, conversation) == ["Q2", "A2"]
    assert history.message(q2).parent_id is None


def test_deleting_the_last_pair_moves_the_leaf_up_and_takes_every_answer(history: History):
    conversation, (_q1, a1, q2, a2) = two_turns(history)
    history.branch_from(conversation, a2)
    history.add_message(conversation, "assistant", "A2 again")
    assert delete_pair(history, conversation, q2) == a1
    assert contents(history, conversation) == ["Q1", "A1"]
    assert [m.content for m in history.all_messages(conversation)] == ["Q1", "A1"]
