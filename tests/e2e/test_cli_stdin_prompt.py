"""A prompt on standard input, as a user gives it: piped from ``echo`` (whose newline is not part of the
question) or typed at a terminal (where parley says how to finish). Real processes, a loopback server."""

from __future__ import annotations

import json
import os
import pty
import select
import sqlite3
import subprocess
import time
from pathlib import Path

from tests.support.cli_process import REPO, parley_command, run_parley
from tests.support.loopback import LoopbackServer
from tests.support.openai_wire import stream_response


def sent_prompt(server: LoopbackServer) -> str:
    (request,) = server.requests
    return request.json["messages"][-1]["content"]


def test_the_newline_echo_adds_is_not_sent_or_saved():
    with LoopbackServer() as server:
        server.always("POST", "/v1/chat/completions", stream_response("fine"))
        added = run_parley("providers", "add", "local", "--base-url", server.url + "/v1", "--model", "m")
        assert added.returncode == 0, added.stderr
        chat = run_parley("chat", stdin="first line\n\n  indented second line\n\r\n")
        assert chat.returncode == 0, chat.stderr
        assert sent_prompt(server) == "first line\n\n  indented second line"
    shown = json.loads(run_parley("history", "show", "--json", "1").stdout)
    assert shown["messages"][0]["content"] == "first line\n\n  indented second line"


def read_until(fd: int, wanted: bytes, seconds: float) -> bytes:
    seen = b""
    deadline = time.monotonic() + seconds
    while wanted not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            seen += chunk
    return seen


def test_a_terminal_is_told_how_to_end_the_prompt():
    with LoopbackServer() as server:
        server.always("POST", "/v1/chat/completions", stream_response("fine"))
        terminal, child_side = pty.openpty()  # parley on a terminal of its own
        process = subprocess.Popen([*parley_command(), "chat", "--no-save", "--base-url", server.url + "/v1",
                                    "--model", "m"], stdin=child_side, stdout=child_side, stderr=child_side,
                                   cwd=REPO, env=dict(os.environ), start_new_session=True)
        os.close(child_side)
        try:
            hint = read_until(terminal, b"Ctrl+D", 30)
            assert b"Type your message" in hint and b"Ctrl+D" in hint, hint
            os.write(terminal, b"typed here\n\x04")
            rest = read_until(terminal, b"fine", 30)
            assert b"fine" in rest, rest
            assert process.wait(timeout=30) == 0
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            os.close(terminal)
        assert sent_prompt(server) == "typed here"


def chat_typed_on_a_terminal(typed: bytes, *args: str) -> tuple[int, bytes]:
    terminal, child_side = pty.openpty()
    process = subprocess.Popen([*parley_command(), "chat", *args], stdin=child_side, stdout=child_side,
                               stderr=child_side, cwd=REPO, env=dict(os.environ), start_new_session=True)
    os.close(child_side)
    try:
        shown = read_until(terminal, b"Ctrl+D", 30)
        os.write(terminal, typed + b"\n\x04")
        code = process.wait(timeout=60)
        return code, shown + read_until(terminal, b"\0", 2)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(terminal)


def test_a_typed_prompt_is_given_back_when_the_chat_cannot_start():
    with LoopbackServer() as server:
        server.always("POST", "/v1/chat/completions", stream_response("fine"))
        added = run_parley("providers", "add", "local", "--base-url", server.url + "/v1", "--model", "m")
        assert added.returncode == 0, added.stderr
        code, shown = chat_typed_on_a_terminal(b"a long question I typed", "--conversation", "999")
        assert server.count == 0
    assert code == 2
    assert b"there is no conversation 999" in shown
    assert b"your message was not sent" in shown and shown.count(b"a long question I typed") == 2, shown


def test_a_typed_prompt_is_given_back_when_the_database_is_locked():
    with LoopbackServer() as server:
        server.always("POST", "/v1/chat/completions", stream_response("fine"))
        added = run_parley("providers", "add", "local", "--base-url", server.url + "/v1", "--model", "m")
        assert added.returncode == 0, added.stderr
        assert run_parley("chat", "first").returncode == 0
        database = Path(os.environ["PARLEY_HOME"]) / "data" / "history.db"
        holder = sqlite3.connect(database, isolation_level=None)  # another program writing, as the window may
        try:
            holder.execute("BEGIN EXCLUSIVE")
            code, shown = chat_typed_on_a_terminal(b"typed while locked")
        finally:
            holder.close()
        assert server.count == 1
    assert code == 1 and b"locked" in shown, shown
    assert b"your message was not sent" in shown and shown.count(b"typed while locked") == 2, shown
