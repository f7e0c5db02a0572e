"""Conversations and their message trees: create, list, rename, delete (cascading), branch and switch."""

from __future__ import annotations

import pytest

from app.storage import History, NotFoundError
from app.storage.history import TITLE_CHARS, title_from_text
from app.storage.run_recorder import RunRecorder
from orchestration.events import ContentDelta, Done, EventFactory, RunStarted, ToolCallInfo, ToolCalls, ToolResult
from orchestration.redaction import REDACTED


def record_answer(history: History, conversation_id: int, user_text: str | None, answer: str, *,
                  reply_to: int | None = None, with_tool: bool = False) -> RunRecorder:
    recorder = RunRecorder(history, conversation_id)
    ids = recorder.begin(user_text, reply_to=reply_to)
    events = EventFactory(ids.run_id)
    recorder(events.make(RunStarted, provider="p", model="m"))
    events.iteration = 1
    if with_tool:
        recorder(events.make(ToolCalls, calls=[ToolCallInfo(id="c1", name="calculate", arguments="{}")]))
        recorder(events.make(ToolResult, id="c1", name="calculate", result="2", status="ok", duration_ms=1,
                             category="utility", visibility="hidden"))
        events.iteration = 2
    recorder(events.make(ContentDelta, content=answer))
    recorder(events.make(Done, finish_reason="stop"))
    assert recorder.saved
    return recorder


def test_conversation_survives_reopening(db_path):
    with History.open(db_path) as history:
        cid = history.create_conversation("Trip to Lisbon", provider="p", model="m", system_prompt="Be brief.")
        record_answer(history, cid, "Where should I eat?", "Try the pastéis.")
    with History.open(db_path) as history:
        conversation = history.conversation(cid)
        assert (conversation.title, conversation.provider, conversation.model, conversation.system_prompt) == (
            "Trip to Lisbon", "p", "m", "Be brief.")
        assert [(m.role, m.content, m.status) for m in history.branch(cid)] == [
            ("user", "Where should I eat?", "complete"), ("assistant", "Try the pastéis.", "complete")]


def test_list_puts_pinned_first_then_newest_and_hides_archived(history):
    old = history.create_conversation("old")
    pinned = history.create_conversation("pinned")
    archived = history.create_conversation("archived")
    new = history.create_conversation("new")
    history.add_message(new, "user", "hi")
    history.set_pinned(pinned, True)
    history.set_archived(archived, True)
    history.rename(new, "  newest  ")
    ids = [c.id for c in history.list_conversations()]
    assert ids[0] == pinned and set(ids) == {old, pinned, new}
    assert ids.index(new) < ids.index(old)
    everything = {c.id: c for c in history.list_conversations(include_archived=True)}
    assert everything[archived].archived and everything[new].title == "newest"
    assert everything[new].message_count == 1


def test_delete_cascades_to_messages_tools_runs_and_events(history):
    cid = history.create_conversation("to delete")
    recorder = record_answer(history, cid, "question", "answer", with_tool=True)
    keep = history.create_conversation("keep")
    record_answer(history, keep, "other", "reply")
    history.delete(cid)
    counts = {t: history.db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
              for t in ("messages", "tool_calls", "tool_outputs", "runs", "run_events")}
    assert counts == {"messages": 2, "tool_calls": 0, "tool_outputs": 0, "runs": 1, "run_events": 3}
    assert history.run_events(recorder.ids.run_id) == []
    with pytest.raises(NotFoundError, match=f"no conversation {cid}"):
        history.conversation(cid)
    with pytest.raises(NotFoundError):
        history.delete(cid)
    assert [c.id for c in history.list_conversations()] == [keep]


def test_editing_a_message_creates_a_sibling_branch_and_keeps_the_old_one(history):
    cid = history.create_conversation("branches")
    record_answer(history, cid, "first question", "first answer")
    first_user = history.branch(cid)[0]
    history.branch_from(cid, first_user.id)
    record_answer(history, cid, "edited question", "answer to the edit")
    current = history.branch(cid)
    assert [m.content for m in current] == ["edited question", "answer to the edit"]
    roots = history.children(cid, None)
    assert [m.content for m in roots] == ["first question", "edited question"]
    history.switch_branch(cid, first_user.id)
    assert [m.content for m in history.branch(cid)] == ["first question", "first answer"]


def test_regenerating_an_answer_adds_a_sibling_reply(history):
    cid = history.create_conversation("regen")
    record_answer(history, cid, "question", "answer one")
    user = history.branch(cid)[0]
    record_answer(history, cid, None, "answer two", reply_to=user.id)
    replies = history.children(cid, user.id)
    assert [m.content for m in replies] == ["answer one", "answer two"]
    assert [m.content for m in history.branch(cid)] == ["question", "answer two"]
    assert len(history.all_messages(cid)) == 3


def test_switch_goes_to_the_newest_leaf_below_a_message(history):
    cid = history.create_conversation("deep")
    record_answer(history, cid, "q1", "a1")
    record_answer(history, cid, "q2", "a2")
    q1 = history.branch(cid)[0]
    history.branch_from(cid, q1.id)
    record_answer(history, cid, "q1 again", "a1 again")
    leaf = history.switch_branch(cid, q1.id)
    assert history.message(leaf).content == "a2"


def test_messages_of_other_conversations_are_refused(history):
    one = history.create_conversation("one")
    two = history.create_conversation("two")
    message = history.add_message(one, "user", "hello")
    with pytest.raises(NotFoundError, match="not part of conversation"):
        history.branch_from(two, message)
    with pytest.raises(NotFoundError, match="no message 12345"):
        history.message(12345)


def test_titles_come_from_the_first_line():
    assert title_from_text("\n  Plan a trip  \nwith details") == "Plan a trip"
    long = title_from_text("word " * 100)
    assert len(long) == TITLE_CHARS and long.endswith("…")



TITLE_KEY = "sk-proj-Title4Key9NotReal0000aaaa1111"


@pytest.mark.parametrize("position", [0, 40, TITLE_CHARS - 12, TITLE_CHARS - 2, TITLE_CHARS + 5])
def test_a_key_in_the_first_line_never_reaches_the_title_not_even_its_start(position):
    text = "a" * position + TITLE_KEY + " and more words after it" * 3
    title = title_from_text(text, [TITLE_KEY])
    assert TITLE_KEY[:9] not in title and len(title) <= TITLE_CHARS
    assert title.startswith("a" * min(position, TITLE_CHARS - 15))


def test_key_shaped_strings_are_redacted_in_titles_even_when_not_the_key_in_use(history):
    others = ["sk-ant-api03-Abc123Def456Ghi789Jkl0", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
              "gsk_1234567890abcdefGHIJKLmnop", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"]
    for other in others:
        assert other[:9] not in title_from_text(f"is {other} valid?")
    cid = history.create_conversation(f"about {others[0]}")
    assert history.conversation(cid).title == f"about {REDACTED}"
    history.rename(cid, f"renamed {others[1]} here")
    assert history.conversation(cid).title == f"renamed {REDACTED} here"
    assert title_from_text("How does sk-learn compare to torch?") == "How does sk-learn compare to torch?"


def test_a_stored_value_nested_too_deep_is_named_damage(history):
    from app.storage.integrity import DamagedDatabaseError

    conversation = history.create_conversation("t")
    message_id = history.add_message(conversation, "user", "hi")
    history.db.execute("UPDATE messages SET usage = ? WHERE id = ?", ["[" * 1_100 + "]" * 1_100, message_id])
    with pytest.raises(DamagedDatabaseError) as caught:
        history.message(message_id)
    assert "usage" in str(caught.value) and "nested more than 100 levels deep" in str(caught.value)
