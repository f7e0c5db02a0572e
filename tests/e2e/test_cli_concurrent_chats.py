"""Two `parley chat --conversation N` at once, as real processes against a slow loopback model: both are saved,
neither message lands inside the other's run, and each is stored right after the context it was sent with."""

from __future__ import annotations

import sqlite3
import subprocess
import time

from app.paths import resolve_paths
from tests.support.cli_process import REPO, parley_command, run_parley
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_response

# The answer streams in this many pieces, this far apart: long enough for the second chat to start meanwhile.
PIECES, PIECE_DELAY_S = 40, 0.1


def slow_model(request: Request) -> Response | None:
    if request.path != "/v1/chat/completions":
        return None
    question = [m for m in request.json["messages"] if m["role"] == "user"][-1]["content"]
    answer = f"Answer to {question}".ljust(PIECES * 2, ".")
    response = stream_response(answer, piece=2)
    response.chunk_delay = PIECE_DELAY_S
    return response


def chat(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([*parley_command(), "chat", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=REPO)


def chain(db: sqlite3.Connection, message_id: int) -> list[tuple[str, str]]:
    """(role, content) from the first message down to ``message_id``."""
    out = []
    current: int | None = message_id
    while current is not None:
        role, content, current = db.execute("SELECT role, content, parent_id FROM messages WHERE id = ?",
                                            [current]).fetchone()
        out.append((role, content))
    return out[::-1]


def test_two_chats_on_one_conversation_at_once(tmp_path):
    with LoopbackServer(handler=slow_model) as server:
        assert run_parley("providers", "add", "local", "--base-url", server.url + "/v1", "--model", "m").returncode == 0
        assert run_parley("chat", "first").returncode == 0
        first_chat = chat("--conversation", "1", "from A")
        deadline = time.monotonic() + 30
        while server.count < 2 and time.monotonic() < deadline:  # A has saved its message and is being answered
            time.sleep(0.02)
        second_chat = chat("--conversation", "1", "from B")
        results = [process.communicate(timeout=60) for process in (first_chat, second_chat)]
        assert [first_chat.returncode, second_chat.returncode] == [0, 0], results
        sent = {[m for m in r.json["messages"] if m["role"] == "user"][-1]["content"]: r.json["messages"]
                for r in server.requests}

    with sqlite3.connect(resolve_paths().database) as db:
        rows = db.execute("SELECT id, role, content, parent_id FROM messages ORDER BY id").fetchall()
        role_of = {row[0]: row[1] for row in rows}
        assert [row[2][:16] for row in rows if row[1] == "user"] == ["first", "from A", "from B"]
        assert all(role_of.get(parent) != "user" for _, role, _, parent in rows if role == "user")  # never nested
        for question in ("from A", "from B"):
            [question_id] = [row[0] for row in rows if row[2] == question]
            stored = chain(db, question_id)
            assert stored == [(m["role"], m["content"]) for m in sent[question]]  # stored where it was sent from
            [answer] = [row for row in rows if row[3] == question_id]
            assert answer[1] == "assistant" and answer[2].startswith(f"Answer to {question}")
        statuses = db.execute("SELECT status FROM runs").fetchall()
        assert statuses == [("complete",)] * 3
