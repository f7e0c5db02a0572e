"""The crash loop: a streaming `parley chat` killed with SIGKILL at random points, again and again, on one
history. After every kill the file passes ``PRAGMA integrity_check``, and every question that reached the
provider (so was saved first) is still in the database, whatever point the kill hit: start-up, migrations,
the user message, a checkpoint, the final transaction, or after the run finished.

``CRASH_LOOP_SEED`` picks the kill times (default 14; the seed is in the failure message) and
``CRASH_LOOP_RUNS`` how many processes are started (default 8).
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.paths import resolve_paths
from app.storage import History
from tests.support.cli_process import REPO, parley_command
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_chunks

SEED = int(os.environ.get("CRASH_LOOP_SEED", "14"))
RUNS = int(os.environ.get("CRASH_LOOP_RUNS", "8"))
ANSWER = " ".join(f"word{i}" for i in range(60))
CHUNK_DELAY_S = 0.04  # 60 words in pieces of 8 characters: about 2.5 s of streaming
LATEST_KILL_S = 5.0  # past start-up (about 1 s) and the whole stream, so some runs finish before the kill


def _integrity(path: Path) -> list[tuple[str]]:
    with sqlite3.connect(path, timeout=10) as conn:
        return conn.execute("PRAGMA integrity_check").fetchall()


def _conversation_id(path: Path) -> int | None:
    if not path.exists():
        return None
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10) as conn:
            row = conn.execute("SELECT min(id) FROM conversations").fetchone()
    except sqlite3.OperationalError:  # killed before the tables were made
        return None
    return None if row is None else row[0]


def _last_question(request: Request) -> str | None:
    users = [m for m in (request.json or {}).get("messages", []) if m.get("role") == "user"]
    return users[-1]["content"] if users else None


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_sigkill_at_random_points_keeps_the_database_and_every_question():
    database = resolve_paths().database
    chooser = random.Random(SEED)
    context = f"(CRASH_LOOP_SEED={SEED}, CRASH_LOOP_RUNS={RUNS})"
    asked: list[str] = []
    outcomes: list[str] = []  # per run: when it was killed (or that it finished) and whether it asked
    with LoopbackServer() as server:
        server.always("POST", "/v1/chat/completions",
                      Response.sse(stream_chunks(ANSWER, piece=8), done=True, chunk_delay=CHUNK_DELAY_S))
        for run in range(RUNS):
            question = f"question {run}: how are you?"
            conversation = _conversation_id(database)
            follow_up = [] if conversation is None else ["--conversation", str(conversation)]
            kill_after = chooser.uniform(0.0, LATEST_KILL_S)
            child = subprocess.Popen([*parley_command(), "chat", "--base-url", server.url + "/v1", "--model", "m",
                                      "--tools", "none", *follow_up, question],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO)
            try:
                try:
                    child.wait(timeout=kill_after)
                except subprocess.TimeoutExpired:
                    child.send_signal(signal.SIGKILL)
                    child.wait(timeout=10)
            finally:
                if child.poll() is None:
                    child.kill()
                    child.wait()
            stderr = child.stderr.read().decode("utf-8", "replace") if child.stderr else ""
            if child.stderr:
                child.stderr.close()
            assert child.returncode in (0, -signal.SIGKILL), f"run {run}: {stderr} {context}"
            if database.exists():
                assert _integrity(database) == [("ok",)], f"after run {run} {context}"
            before = len(asked)
            asked += [q for q in map(_last_question, server.requests[len(asked):]) if q is not None]
            assert len(asked) == server.count, context
            ended = "finished" if child.returncode == 0 else f"killed at {kill_after:.2f} s"
            outcomes.append(f"{run}: {ended}, {'asked' if len(asked) > before else 'did not ask'}")
            context = f"(CRASH_LOOP_SEED={SEED}, CRASH_LOOP_RUNS={RUNS}; {'; '.join(outcomes)})"
        assert asked, f"no run got as far as asking the provider {context}"
        print(context)  # shown with -s: which points the kills hit

    with History.open(database) as history:  # opening also marks the killed runs interrupted
        assert history.db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        stored = {m.content for c in history.list_conversations() for m in history.all_messages(c.id)
                  if m.role == "user"}
        missing = [q for q in asked if q not in stored]
        assert not missing, f"questions sent to the provider but not in the database: {missing} {context}"
        statuses = {r.status for c in history.list_conversations() for r in history.runs(c.id)}
        assert statuses <= {"complete", "interrupted"}, context
