"""A reader that stops early (``parley chat ... | head -1``) ends parley quietly: no traceback, exit 141 (what a
shell reports for SIGPIPE), and what was asked is still saved. Real processes on loopback."""

from __future__ import annotations

import os
import subprocess

from tests.support.cli_process import REPO, parley_command, run_parley
from tests.support.loopback import LoopbackServer, Response
from tests.support.openai_wire import stream_chunks

CLOSED_PIPE_EXIT = 141


def slow_answer() -> Response:
    """Forty lines, one word each every 50 ms: the reader has long closed the pipe before the last one."""
    return Response.sse(stream_chunks("".join(f"word{i}\n" for i in range(40)), piece=7), done=True,
                        chunk_delay=0.05)


def chat_until_reader_leaves(*args: str) -> tuple[int, str]:
    """Start ``parley chat ARGS``, read its first line, close the pipe; return its exit code and stderr."""
    process = subprocess.Popen([*parley_command(), "chat", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               cwd=REPO, env=dict(os.environ))
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    assert first, "parley wrote nothing before the reader left"
    process.stdout.close()
    stderr = process.stderr.read().decode()
    return process.wait(timeout=60), stderr


def test_json_events_into_a_closed_pipe_end_quietly():
    with LoopbackServer() as server:
        server.always("POST", "/v1/chat/completions", slow_answer())
        added = run_parley("providers", "add", "local", "--base-url", server.url + "/v1", "--model", "m")
        assert added.returncode == 0, added.stderr
        code, stderr = chat_until_reader_leaves("--json", "a question worth keeping")
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert code == CLOSED_PIPE_EXIT, stderr
    listed = run_parley("history", "list")
    assert "a question worth keeping" in listed.stdout, listed.stdout + listed.stderr


def test_plain_answer_into_a_closed_pipe_ends_quietly():
    with LoopbackServer() as server:
        server.always("POST", "/v1/chat/completions", slow_answer())
        code, stderr = chat_until_reader_leaves("--base-url", server.url + "/v1", "--model", "m", "--no-save",
                                                "say many words")
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr, stderr
    assert code == CLOSED_PIPE_EXIT, stderr
