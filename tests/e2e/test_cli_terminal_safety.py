"""Terminal escape sequences from a model, a provider or the history never reach the terminal raw (clear screen,
window title, cursor moves, bidi overrides); --json output stays exact JSON. Real processes on loopback."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from tests.support.cli_process import REPO, parley_command
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_response

CLEAR = "\x1b[2J\x1b[H"
TITLE = "\x1b]0;pwned\x07"
C1_CSI = "\x9b31m"
BIDI = "\u202eevil\u202c"
NASTY = f"{CLEAR}A{TITLE}B{C1_CSI}C{BIDI}D\x08\x7f\rE"
ANSWER = f"Answer {NASTY} end\r\nsecond line\tok"
# Anything a terminal acts on: C0 controls except tab and newline, DEL, C1 controls, bidi embeddings/overrides.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def run_parley(*args: str) -> subprocess.CompletedProcess[str]:
    """Like tests.support.cli_process.run_parley, but the output decoded as written: a carriage return stays one."""
    done = subprocess.run([*parley_command(), *args], capture_output=True, timeout=60, cwd=REPO, env=dict(os.environ))
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout.decode(), done.stderr.decode())


def hostile_model(request: Request) -> Response | None:
    if request.path != "/v1/chat/completions":
        return None
    last = request.json["messages"][-1]
    if last["role"] == "user" and "fail" in last["content"]:
        return Response.json({"error": {"message": f"bad request {NASTY}"}}, status=400)
    if last["role"] == "user":
        return stream_response(ANSWER, reasoning=f"thinking {NASTY}", piece=3,
                               calls=[("call_1", "calculate", {"expression": f"1+{NASTY}"})])
    return stream_response(ANSWER, piece=5)


@pytest.fixture
def provider():
    with LoopbackServer(handler=hostile_model) as server:
        added = run_parley("providers", "add", "local", "--base-url", server.url + "/v1", "--model", "m")
        assert added.returncode == 0, added.stderr
        yield server


def assert_terminal_safe(*outputs: str) -> None:
    for output in outputs:
        assert not RAW_CONTROL.search(output), repr(RAW_CONTROL.findall(output))


def test_answers_reasoning_tools_and_errors_are_escaped(provider):
    chat = run_parley("chat", f"Question {NASTY}")
    assert chat.returncode == 0, chat.stderr
    assert_terminal_safe(chat.stdout, chat.stderr)
    assert "Answer \\u001b[2J\\u001b[HA\\u001b]0;pwned\\u0007B\\u009b31mC\\u202eevil\\u202cD" in chat.stdout
    assert "end\nsecond line\tok" in chat.stdout  # newlines (CR LF too) and tabs are text, not controls
    assert "thinking \\u001b[2J" in chat.stderr and "calculate(" in chat.stderr

    failed = run_parley("chat", "please fail")
    assert failed.returncode == 1
    assert_terminal_safe(failed.stdout, failed.stderr)
    assert "bad request \\u001b[2J" in failed.stderr


def test_json_output_is_exact_json_without_raw_controls(provider):
    chat = run_parley("chat", "--json", "Question")
    assert chat.returncode == 0, chat.stderr
    assert_terminal_safe(chat.stdout, chat.stderr)
    events = [json.loads(line) for line in chat.stdout.splitlines()]
    answers = [e for e in events if e["type"] == "content"]
    assert "".join(e["content"] for e in answers if e["iteration"] == 1) == ANSWER  # decoded: exactly as sent
    assert "".join(e["content"] for e in events if e["type"] == "reasoning") == f"thinking {NASTY}"


def test_history_search_and_export_are_escaped(provider):
    assert run_parley("chat", f"Question {NASTY}").returncode == 0
    outputs = []
    for command in (["history", "list"], ["history", "show", "1"], ["search", "Answer"], ["search", "Question"],
                    ["export", "1", "--format", "md"], ["history", "rename", "1", f"Renamed {NASTY}"],
                    ["history", "list"], ["history", "delete", "1"]):
        shown = run_parley(*command)
        assert shown.returncode == 0, (command, shown.stderr)
        outputs += [shown.stdout, shown.stderr]
    assert_terminal_safe(*outputs)
    assert any("Question \\u001b[2J" in text for text in outputs)
    assert any("Renamed \\u001b[2J" in text for text in outputs)


def test_history_json_stays_exact(provider):
    assert run_parley("chat", f"Question {NASTY}").returncode == 0
    listing = run_parley("history", "list", "--json")
    shown = run_parley("history", "show", "1", "--json")
    exported = run_parley("export", "1", "--format", "json")
    assert_terminal_safe(listing.stdout, shown.stdout, exported.stdout)
    assert json.loads(listing.stdout)[0]["title"] == f"Question {NASTY}".splitlines()[0]  # "\r" ends the line
    messages = json.loads(shown.stdout)["messages"]
    assert messages[0]["content"] == f"Question {NASTY}"
    assert json.loads(exported.stdout)["messages"][0]["content"] == f"Question {NASTY}"
