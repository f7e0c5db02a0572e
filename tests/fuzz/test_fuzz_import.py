"""Fuzzing `parley import`: any file is imported whole or refused with ImportFileError, never a traceback, and
what an imported conversation says (its messages, titles, tool outputs) is in the database afterwards."""

from __future__ import annotations

import json

import pytest
from hypothesis import event, example, given
from hypothesis import strategies as st

from app.errors import EnvironmentProblem
from app.storage import History
from app.storage.exchange import ImportFileError, import_conversation, read_export
from app.storage.text_safety import storable
from tests.fuzz.strategies import damaged_bytes, encode_json, json_values, mutated

NOW = 1_760_000_000_000
EXPORT = {
    "format": "parley.conversation", "version": 1, "exported_at": NOW,
    "conversation": {"title": "Eggs", "created_at": NOW, "updated_at": NOW, "provider": "local", "model": "m",
                     "system_prompt": "Be precise.", "pinned": False, "archived": False, "current_leaf_id": 2},
    "messages": [
        {"id": 1, "parent_id": None, "run_id": "r1", "role": "user", "content": "How many eggs?",
         "created_at": NOW},
        {"id": 2, "parent_id": 1, "run_id": "r1", "role": "assistant", "content": "Twelve.", "reasoning": "3*4",
         "status": "complete", "finish_reason": "stop", "model": "m", "usage": {"input_tokens": 3},
         "created_at": NOW, "tool_calls": [
             {"call_id": "c1", "name": "calculate", "arguments": "{\"expression\": \"3*4\"}", "text_offset": 0,
              "output": {"status": "ok", "content": "12", "duration_ms": 1, "data": {"value": 12}}}]},
    ],
    "runs": [{"id": "r1", "user_message_id": 1, "provider": "local", "model": "m", "status": "complete",
              "finish_reason": "stop", "started_at": NOW, "ended_at": NOW, "iterations": 1,
              "error": {"message": "none"}}],
}

files = st.one_of(
    mutated(EXPORT).map(encode_json).map(str.encode),
    mutated(EXPORT, None).map(encode_json).map(str.encode),
    mutated(EXPORT, None).map(encode_json).map(str.encode),
    damaged_bytes(json.dumps(EXPORT)),
    json_values.map(encode_json).map(str.encode),
)


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    with History.open(tmp_path_factory.mktemp("import") / "history.db") as opened:
        yield opened


def _import(history: History, folder, content: bytes) -> None:
    path = folder / "export.json"
    path.write_bytes(content)
    try:
        document = read_export(path)
    except ImportFileError as exc:
        assert str(path) in str(exc)
        event("refused")
        return
    try:
        conversation_id = import_conversation(history, document)
    except EnvironmentProblem:
        event("storage problem")
        return
    event("imported")
    stored = history.all_messages(conversation_id)
    assert [(m.content, m.reasoning) for m in stored] == [
        (storable(m.content), storable(m.reasoning)) for m in document.messages]
    stored_outputs = [c.output.content for m in stored for c in m.tool_calls if c.output is not None]
    assert stored_outputs == [storable(c.output.content) for m in document.messages for c in m.tool_calls
                              if c.output is not None]
    assert history.db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@given(files)
@example(json.dumps({**EXPORT, "messages": [{**EXPORT["messages"][0], "content": "a\ud800b"},
                                            EXPORT["messages"][1]]}).encode())
@example(json.dumps({**EXPORT, "conversation": {**EXPORT["conversation"], "title": "\udfff"}}).encode())
@example(json.dumps({**EXPORT, "messages": [EXPORT["messages"][0], {**EXPORT["messages"][1], "run_id": "\ud800"}]})
         .encode())  # named in the refusal, which pydantic cannot carry with a lone surrogate in it
def test_any_import_file_is_imported_or_refused(history, tmp_path_factory, content: bytes) -> None:
    _import(history, tmp_path_factory.mktemp("file"), content)


def test_the_seed_document_imports(history, tmp_path) -> None:
    """The document the fuzzer mutates is valid, so mutations reach the import itself."""
    path = tmp_path / "export.json"
    path.write_text(json.dumps(EXPORT))
    imported = import_conversation(history, read_export(path))
    assert [m.content for m in history.all_messages(imported)] == ["How many eggs?", "Twelve."]
