"""A `parley chat` process killed with SIGKILL in the middle of a streamed answer leaves an intact database
with the question and the partial answer, which the next start marks interrupted."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from app.paths import resolve_paths
from app.storage import History
from tests.support.cli_process import REPO, parley_command
from tests.support.loopback import LoopbackServer, Response
from tests.support.openai_wire import stream_chunks

STORY = " ".join(f"word{i}" for i in range(400))
CHECKPOINT_WAIT_S = 20  # generous: the first checkpoint comes about 2 s after the run starts


def streaming_rows(path):
    """The assistant rows a checkpoint wrote, read the way another program would (read-only)."""
    if not path.exists():
        return []
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=1) as conn:
            return conn.execute("SELECT content, status FROM messages WHERE role = 'assistant'").fetchall()
    except sqlite3.OperationalError:  # not created or not migrated yet
        return []


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_sigkill_mid_stream_keeps_question_and_partial_answer():
    database = resolve_paths().database
    slow_story = Response.sse(stream_chunks(STORY, piece=8), done=True, chunk_delay=0.05)  # about 13 s in all
    with LoopbackServer() as server:
        server.always("POST", "/v1/chat/completions", slow_story)
        child = subprocess.Popen([*parley_command(), "chat", "--base-url", server.url + "/v1", "--model", "m",
                                  "--json", "Tell me a long story"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO)
        try:
            deadline = time.monotonic() + CHECKPOINT_WAIT_S
            while not streaming_rows(database) and time.monotonic() < deadline and child.poll() is None:
                time.sleep(0.05)
            assert streaming_rows(database), "no checkpoint was written while streaming"
            assert child.poll() is None, "the answer finished before the kill"
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=10)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        assert child.returncode == -signal.SIGKILL

    with sqlite3.connect(database) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    with History.open(database) as history:
        assert history.db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        (conversation,) = history.list_conversations()
        user, answer = history.branch(conversation.id)
        assert (user.role, user.content, user.status) == ("user", "Tell me a long story", "complete")
        assert answer.role == "assistant" and answer.status == "interrupted"
        assert answer.content and STORY.startswith(answer.content) and len(answer.content) < len(STORY)
        (run,) = history.runs(conversation.id)
        assert run.status == "interrupted" and run.ended_at is not None
