"""``parley models`` and ``parley chat`` as real processes against the real llama-cpp-python server: the model
list, and a saved conversation continued over a second turn (the whole history sent back and accepted)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from tests.e2e.test_cli_chat import parley
from tests.support.llama_server import MODEL_ALIAS, LlamaServer


def test_parley_models_lists_the_served_model(llama_server: LlamaServer) -> None:
    result = parley("models", "--preset", "llama-cpp-python", "--base-url", llama_server.base_url, "--json")
    assert result.returncode == 0, result.stderr
    assert [m["id"] for m in json.loads(result.stdout)] == [MODEL_ALIAS]


def test_a_saved_conversation_continues_over_a_second_turn(llama_server: LlamaServer) -> None:
    flags = ["--preset", "llama-cpp-python", "--base-url", llama_server.base_url, "--model", MODEL_ALIAS,
             "--max-output-tokens", "32", "--tools", "calculate"]
    first = parley("chat", *flags, "--tool-choice", "calculate", "What is 6 times 7?", timeout=180)
    assert first.returncode == 0, first.stderr
    assert "[saved as conversation 1]" in first.stderr
    second = parley("chat", *flags, "--conversation", "1", "And what is that plus one?", timeout=180)
    assert second.returncode == 0, second.stderr
    database = Path(os.environ["PARLEY_HOME"]) / "data" / "history.db"
    with sqlite3.connect(database) as db:
        roles = [row[0] for row in db.execute("SELECT role FROM messages WHERE conversation_id = 1 ORDER BY id")]
        calls = db.execute("SELECT COUNT(*) FROM tool_calls JOIN messages ON messages.id = tool_calls.message_id "
                           "WHERE messages.conversation_id = 1").fetchone()[0]
    assert roles.count("user") == 2 and roles[-1] == "assistant"
    assert calls >= 1  # the first turn's tool round trip is part of the history the second turn sent
