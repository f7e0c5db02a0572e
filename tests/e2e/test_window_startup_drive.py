"""The benchmark's drive hook (``PARLEY_STARTUP_DRIVE``, app/session/startup_drive.py) plays a user into the real
window: once ready it opens the list's top conversation by a click, types the message and presses Enter; the
message goes to the configured provider (a loopback server here), the answer is stored in that conversation, and
the marks ``opened``, ``sent`` and ``answered`` come in that order. bench/startup.py reads the memory after it."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

from app.paths import resolve_paths
from app.session.startup_trace import DRIVE_ENV, QUIT_ENV, TRACE_ENV, read_marks
from app.storage import History
from tests.support.cli_process import REPO
from tests.support.loopback import LoopbackServer, Response

CHILD = """
import sys
from app.session.gui import main
sys.exit(main())
"""
ANSWER = [{"id": "c", "object": "chat.completion.chunk", "model": "m",
           "choices": [{"index": 0, "delta": {"content": word}, "finish_reason": None}]}
          for word in ("Driven ", "and ", "answered.")]


def test_the_drive_opens_the_top_conversation_sends_and_marks_the_answer(parley_home, tmp_path) -> None:
    with History.open(resolve_paths().database) as history:
        older = history.create_conversation("older")
        history.add_message(older, "user", "an older question")
        top = history.create_conversation("the newest, so the list's top row")
        history.add_message(top, "user", "an earlier question")
        history.add_message(top, "assistant", "an earlier answer")
    with LoopbackServer() as server:
        server.always("POST", "/v1/chat/completions", Response.sse(ANSWER, done=True))
        settings = resolve_paths().settings
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps({"version": 1, "default_provider": "loop", "providers": [
            {"id": "loop", "kind": "openai", "preset": "custom", "base_url": server.url + "/v1",
             "default_model": "m"}]}))
        trace = tmp_path / "trace.txt"
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PARLEY_HOME": str(parley_home),
               TRACE_ENV: str(trace), QUIT_ENV: "0", DRIVE_ENV: "typed by the drive"}
        done = subprocess.run([sys.executable, "-c", CHILD], cwd=REPO, env=env, capture_output=True, text=True,
                              timeout=90)
    assert done.returncode == 0, done.stderr
    marks = read_marks(str(trace))
    assert list(marks) == ["painted", "ready", "opened", "sent", "answered"], trace.read_text()
    with sqlite3.connect(resolve_paths().database) as db:
        rows = db.execute("SELECT role, content FROM messages WHERE conversation_id = ? ORDER BY id", [top]).fetchall()
    assert rows[-2:] == [("user", "typed by the drive"), ("assistant", "Driven and answered.")]
