"""Per-conversation chat settings: round trip, defaults, wrong ids, damage, and the upgrade from version 2."""

from __future__ import annotations

import sqlite3

import pytest
from sqlite_utils import Database

from app.storage import History, NotFoundError
from app.storage.chat_settings import ChatSettingsStore, StoredChatSettings
from app.storage.integrity import DamagedDatabaseError
from app.storage.migrations import MIGRATIONS, apply_migrations
from app.storage.search import HistorySearch


def test_settings_round_trip_and_survive_reopening(history, db_path):
    cid = history.create_conversation("t", provider="local", model="m1", system_prompt="be brief")
    saved = StoredChatSettings(provider="other", model="m2", system_prompt="answer in French",
                               tools=("calculate", "web_search"), reasoning_effort="high", temperature=0.4,
                               max_output_tokens=512)
    ChatSettingsStore(history).save(cid, saved)
    history.close()
    with History.open(db_path) as reopened:
        assert ChatSettingsStore(reopened).load(cid) == saved
        conversation = reopened.conversation(cid)
        assert (conversation.provider, conversation.system_prompt) == ("local", "answer in French")


def test_a_conversation_without_a_row_has_its_model_prompt_and_the_defaults(history):
    cid = history.create_conversation("t", provider="Local server", model="m1", system_prompt="be brief")
    assert ChatSettingsStore(history).load(cid) == StoredChatSettings(model="m1", system_prompt="be brief")


def test_no_tools_is_kept_apart_from_all_tools_and_a_cleared_prompt_is_none(history):
    cid = history.create_conversation("t", system_prompt="old")
    store = ChatSettingsStore(history)
    store.save(cid, StoredChatSettings(tools=(), system_prompt=""))
    loaded = store.load(cid)
    assert loaded.tools == () and loaded.system_prompt is None
    store.save(cid, StoredChatSettings(tools=None))
    assert store.load(cid).tools is None


def test_saving_does_not_reorder_the_conversation_list(history):
    first = history.create_conversation("first")
    second = history.create_conversation("second")
    before = [c.id for c in history.list_conversations()]
    ChatSettingsStore(history).save(first, StoredChatSettings(temperature=1.0))
    assert [c.id for c in history.list_conversations()] == before == [second, first]


def test_wrong_ids_and_bad_values_are_refused(history):
    store = ChatSettingsStore(history)
    with pytest.raises(NotFoundError):
        store.load(404)
    with pytest.raises(NotFoundError):
        store.save(404, StoredChatSettings())
    cid = history.create_conversation("t")
    with pytest.raises(ValueError, match="reasoning effort"):
        store.save(cid, StoredChatSettings(reasoning_effort="extreme"))
    with pytest.raises(sqlite3.IntegrityError):
        store.save(cid, StoredChatSettings(max_output_tokens=0))


def test_deleting_the_conversation_deletes_its_settings(history):
    cid = history.create_conversation("t")
    ChatSettingsStore(history).save(cid, StoredChatSettings(temperature=0.2))
    history.delete(cid)
    assert history.db.execute("SELECT COUNT(*) FROM conversation_settings").fetchone() == (0,)


def test_a_damaged_row_is_named_not_a_crash(history):
    cid = history.create_conversation("t")
    history.db.execute("INSERT INTO conversation_settings (conversation_id, tools, updated_at) VALUES (?, ?, 0)",
                       [cid, "not json"])
    with pytest.raises(DamagedDatabaseError, match="tools"):
        ChatSettingsStore(history).load(cid)


def test_migration_3_adds_chat_settings_and_keeps_every_row_of_a_version_2_database(db_path):
    db_path.parent.mkdir(parents=True, exist_ok=True)
    old = Database(sqlite3.connect(db_path))
    old.execute("PRAGMA foreign_keys = ON")
    apply_migrations(old, MIGRATIONS[:2])
    old.execute("INSERT INTO conversations (id, title, created_at, updated_at, provider, model, system_prompt, "
                "pinned) VALUES (1, 'kept', 5, 6, 'local', 'm', 'sys', 1)")
    old.execute("INSERT INTO messages (id, conversation_id, role, content, created_at, updated_at) "
                "VALUES (1, 1, 'user', 'hello lisbon', 0, 0)")
    old.execute("INSERT INTO runs (id, conversation_id, user_message_id, started_at, input_tokens) "
                "VALUES ('r1', 1, 1, 0, NULL)")
    old.execute("INSERT INTO messages (id, conversation_id, parent_id, run_id, role, content, created_at, "
                "updated_at) VALUES (2, 1, 1, 'r1', 'assistant', 'hi', 0, 0)")
    old.execute("INSERT INTO tool_calls (id, message_id, position, call_id, name, arguments, text_offset) "
                "VALUES (1, 2, 0, 'c1', 'calculate', '{}', 0)")
    old.execute("INSERT INTO tool_outputs (tool_call_id, status, content) VALUES (1, 'ok', '42')")
    old.execute("INSERT INTO run_events (run_id, seq, type, iteration, ts, event) VALUES ('r1', 1, 'done', 1, 0, '{}')")
    old.conn.commit()
    tables = ("conversations", "messages", "runs", "tool_calls", "tool_outputs", "run_events")
    before = {t: old.execute(f"SELECT * FROM {t}").fetchall() for t in tables}
    assert apply_migrations(old, MIGRATIONS[:3]) == [3]
    assert {t: old.execute(f"SELECT * FROM {t}").fetchall() for t in tables} == before
    old.close()
    with History.open(db_path) as history:
        assert ChatSettingsStore(history).load(1) == StoredChatSettings(model="m", system_prompt="sys")
        assert [h.message_id for h in HistorySearch(history).search("lisbon")] == [1]
        ChatSettingsStore(history).save(1, StoredChatSettings(provider="local", model="m", temperature=0.7))
        assert ChatSettingsStore(history).load(1).temperature == 0.7
