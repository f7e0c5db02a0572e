"""Saved conversations end to end, as real processes: a chat survives restart, continues, is found, exported and
imported; a broken database is reported and left alone."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tests.support.cli_process import run_parley
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_response


def travel_model(request: Request) -> Response | None:
    """Answers depending on how much conversation it was sent."""
    if request.path != "/v1/chat/completions":
        return None
    users = [m["content"] for m in request.json["messages"] if m["role"] == "user"]
    if len(users) == 1:
        return stream_response("Lisbon: eat in Alfama, walk to Belém.", reasoning="Think of neighbourhoods.")
    return stream_response(f"After {len(users) - 1} earlier questions: take the train to Porto.")


@pytest.fixture
def server():
    with LoopbackServer(handler=travel_model) as running:
        yield running


@pytest.fixture
def local_provider(server):
    added = run_parley("providers", "add", "local", "--base-url", server.url + "/v1", "--model", "travel-1")
    assert added.returncode == 0, added.stderr
    return server


def test_conversation_survives_restart_is_continued_found_exported_and_imported(local_provider, tmp_path):
    server = local_provider
    first = run_parley("chat", "Plan a day in Lisbon")
    assert first.returncode == 0, first.stderr
    assert first.stdout == "Lisbon: eat in Alfama, walk to Belém.\n"
    assert "[saved as conversation 1]" in first.stderr

    second = run_parley("chat", "--conversation", "1", "And the next day?")  # a new process: a restart
    assert second.returncode == 0, second.stderr
    sent = server.requests[-1].json["messages"]
    assert [(m["role"], m["content"]) for m in sent] == [
        ("user", "Plan a day in Lisbon"), ("assistant", "Lisbon: eat in Alfama, walk to Belém."),
        ("user", "And the next day?")]
    assert server.requests[-1].json["model"] == "travel-1"

    found = run_parley("search", "alfama", "--json")
    hits = json.loads(found.stdout)
    assert [(h["conversation_id"], h["role"]) for h in hits] == [(1, "assistant")]
    assert "**Alfama**" in hits[0]["snippet"]

    exported = tmp_path / "lisbon.json"
    assert run_parley("export", "1", "--format", "json", "--output", str(exported)).returncode == 0
    imported = run_parley("import", str(exported))
    assert imported.returncode == 0 and "as conversation 2" in imported.stdout
    markdown = [run_parley("export", str(i), "--format", "md").stdout for i in (1, 2)]
    assert markdown[0].replace("Conversation 1", "") == markdown[1].replace("Conversation 2", "")
    assert "Think of neighbourhoods." in markdown[0] and "take the train to Porto" in markdown[0]
    data = json.loads(exported.read_text())
    assert [m["role"] for m in data["messages"]] == ["user", "assistant", "user", "assistant"]
    assert [r["status"] for r in data["runs"]] == ["complete", "complete"]

    listing = run_parley("history", "list", "--json")
    assert [c["title"] for c in json.loads(listing.stdout)] == ["Plan a day in Lisbon", "Plan a day in Lisbon"]


def test_regenerate_makes_a_sibling_answer(local_provider):
    assert run_parley("chat", "Plan a day in Lisbon").returncode == 0
    again = run_parley("chat", "--conversation", "1", "--regenerate")
    assert again.returncode == 0, again.stderr
    shown = run_parley("history", "show", "1").stdout
    assert "(2 of 2 versions)" in shown, "the new answer, as the window's switcher counts it"
    assert len(local_provider.requests) == 2
    assert [m["role"] for m in local_provider.requests[-1].json["messages"]] == ["user"]


def test_no_save_leaves_no_trace(local_provider, parley_home):
    result = run_parley("chat", "--no-save", "Plan a day in Lisbon")
    assert result.returncode == 0 and "saved" not in result.stderr
    assert run_parley("history", "list", "--json").stdout.strip() == "[]"


def test_broken_database_is_reported_and_nothing_is_sent(server, parley_home):
    database = parley_home / "data" / "history.db"
    database.parent.mkdir(parents=True)
    database.write_bytes(b"my precious notes\n" * 300)
    result = run_parley("chat", "--base-url", server.url + "/v1", "--model", "m", "hello")
    assert result.returncode == 1
    assert str(database) in result.stderr and "damaged" in result.stderr
    assert database.read_bytes() == b"my precious notes\n" * 300
    assert server.count == 0  # the question could not be saved, so it was not sent


def test_unknown_conversation_is_usage_error(server):
    result = run_parley("chat", "--base-url", server.url + "/v1", "--model", "m", "--conversation", "42", "hi")
    assert result.returncode == 2 and "no conversation 42" in result.stderr
    assert server.count == 0


def export_with(**changes: object) -> dict:
    """A valid export document (one question, one answer, one run) with fields replaced by dotted path."""
    document = {
        "format": "parley.conversation", "version": 1, "exported_at": 0,
        "conversation": {"title": "t", "created_at": 1, "updated_at": 1},
        "messages": [{"id": 1, "role": "user", "content": "q", "created_at": 1},
                     {"id": 2, "parent_id": 1, "run_id": "r", "role": "assistant", "content": "a", "created_at": 2,
                      "tool_calls": [{"call_id": "c", "name": "calculate", "arguments": "{}", "text_offset": 0,
                                      "output": {"status": "ok", "content": "2", "duration_ms": 1}}]}],
        "runs": [{"id": "r", "status": "complete", "started_at": 1, "input_tokens": 3}],
    }
    for path, value in changes.items():
        target = document
        *parents, last = path.split(".")
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        target[last] = value
    return document


@pytest.mark.parametrize(("path", "value"), [
    ("conversation.created_at", 10**30), ("conversation.updated_at", -(10**30)), ("messages.0.created_at", 10**19),
    ("messages.1.tool_calls.0.text_offset", 2**63), ("messages.1.tool_calls.0.output.duration_ms", 10**30),
    ("runs.0.started_at", 10**30), ("runs.0.input_tokens", 10**30), ("exported_at", 10**30),
])
def test_an_import_with_numbers_out_of_range_is_refused_naming_the_field(tmp_path, path, value):
    file = tmp_path / "huge.json"
    file.write_text(json.dumps(export_with(**{path: value})))
    result = run_parley("import", str(file))
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and str(file) in result.stderr
    assert path.replace(".0.", "[0].").replace(".1.", "[1].") in result.stderr
    assert run_parley("history", "list", "--json").stdout.strip() == "[]"
    fine = tmp_path / "fine.json"
    fine.write_text(json.dumps(export_with()))
    assert run_parley("import", str(fine)).returncode == 0


@pytest.fixture
def saved_chat(local_provider, parley_home):
    """One saved conversation (id 1); returns the database file, to be damaged by hand."""
    assert run_parley("chat", "Plan a day in Lisbon").returncode == 0
    return parley_home / "data" / "history.db"


def damage(database, *statements: str) -> None:
    """What another program might do to the file: foreign keys off, as the sqlite3 shell has them."""
    with sqlite3.connect(database) as db:
        for statement in statements:
            db.execute(statement)


def assert_reported_damaged(result, database, *words: str) -> None:
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert "damaged" in result.stderr and str(database) in result.stderr
    for word in words:
        assert word in result.stderr


@pytest.mark.parametrize(("statements", "words"), [
    (["DROP TABLE conversations"], ["conversations"]),
    (["DROP TABLE schema_migrations"], ["schema_migrations"]),
    (["ALTER TABLE messages DROP COLUMN reasoning"], ["messages", "reasoning"]),
    (["DROP TRIGGER messages_fts_insert"], ["messages_fts_insert"]),
])
def test_a_missing_table_column_or_trigger_is_damage(saved_chat, local_provider, statements, words):
    damage(saved_chat, *statements)
    for command in (["history", "list"], ["chat", "--conversation", "1", "And then?"], ["chat", "new question"]):
        assert_reported_damaged(run_parley(*command), saved_chat, *words)
    assert local_provider.count == 1  # nothing was sent after the damage


def test_a_conversation_row_missing_under_its_messages_is_damage_not_a_wrong_id(saved_chat, local_provider):
    damage(saved_chat, "DELETE FROM conversations WHERE id = 1")
    for command in (["chat", "--conversation", "1", "And then?"], ["history", "show", "1"],
                    ["export", "1", "--format", "json"], ["history", "rename", "1", "x"], ["history", "delete", "1"]):
        assert_reported_damaged(run_parley(*command), saved_chat, "conversation 1")
    assert run_parley("history", "show", "42").returncode == 2  # an id that never existed is still a usage error
    assert local_provider.count == 1


# Bytes in a text column (a title written as x'00ff') are no longer damage that stops the command: the value shows
# as "[damaged value] ..." and the rest of the history stays usable (tests/app/cli/test_blob_values_cli.py).
@pytest.mark.parametrize(("statement", "command", "words"), [
    ("UPDATE conversations SET updated_at = 'garbage'", ["history", "list"], ["conversations", "updated_at"]),
    ("UPDATE conversations SET created_at = 'garbage'", ["export", "1", "--format", "json"], ["created_at"]),
    ("UPDATE messages SET usage = '{not json'", ["history", "show", "1"], ["messages", "usage"]),
    ("UPDATE messages SET created_at = 1e30", ["export", "1", "--format", "md"], ["created_at"]),
    ("UPDATE conversations SET current_leaf_id = 999", ["history", "show", "1"], ["999"]),
    ("UPDATE runs SET error = '[[['", ["export", "1", "--format", "json"], ["runs", "error"]),
])
def test_garbage_in_a_column_is_damage(saved_chat, statement, command, words):
    damage(saved_chat, statement)
    assert_reported_damaged(run_parley(*command), saved_chat, *words)
