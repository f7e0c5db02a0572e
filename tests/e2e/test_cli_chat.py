"""The ``parley`` command end to end: a real process against a local OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orchestration.events import parse_event
from tests.support.engine_off import save_engine_off
from tests.support.loopback import Chunk, LoopbackServer, Request, Response
from tests.support.openai_wire import stream_chunks, stream_response

REPO = Path(__file__).resolve().parents[2]
SECRET = "test-key-not-a-real-secret"


def parley(*args: str, stdin: str | None = None, timeout: float = 60, **env: str) -> subprocess.CompletedProcess:
    script = Path(sys.executable).with_name("parley")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "app.cli.entry"]
    return subprocess.run([*command, *args], input=stdin, capture_output=True, text=True, timeout=timeout,
                          cwd=REPO, env={**os.environ, "PARLEY_TEST_KEY": SECRET, **env})


def calculator_model(request: Request) -> Response | None:
    """Plays a model that uses `calculate` once, then answers with the tool's result."""
    if request.path != "/v1/chat/completions":
        return None
    messages = request.json["messages"]
    tool_messages = [m for m in messages if m["role"] == "tool"]
    if not tool_messages:
        return stream_response("Let me compute that.", calls=[("call_calc1", "calculate", {"expression": "6*7"})])
    assert tool_messages[0]["tool_call_id"] == "call_calc1"
    return stream_response(f"The answer is {tool_messages[0]['content'].split('=')[-1].strip()}.",
                           reasoning="The tool said so.")


@pytest.fixture
def model_server():
    with LoopbackServer(handler=calculator_model) as server:
        yield server


def chat_args(server: LoopbackServer, *extra: str) -> list[str]:
    return ["chat", "--kind", "openai", "--base-url", server.url + "/v1", "--model", "m",
            "--api-key-env", "PARLEY_TEST_KEY", *extra]


def test_json_run_holds_a_tool_using_turn(model_server):
    proc = parley(*chat_args(model_server, "--json"), "What is 6 times 7?")
    assert proc.returncode == 0, proc.stderr
    events = [parse_event(line) for line in proc.stdout.splitlines()]
    assert all(e is not None for e in events)
    types = [e.type for e in events]
    assert types[0] == "run_started" and types[-1] == "done"
    assert events[-1].finish_reason == "stop"
    seqs = [e.seq for e in events]
    assert seqs == sorted(set(seqs))
    result = next(e for e in events if e.type == "tool_result")
    assert (result.name, result.status, result.result) == ("calculate", "ok", "6*7 = 42")
    answer = "".join(e.content for e in events if e.type == "content" and e.iteration == 2)
    assert answer == "The answer is 42."
    assert {e.iteration for e in events if e.type == "usage"} == {1, 2}
    first, second = model_server.requests
    assert first.header("authorization") == f"Bearer {SECRET}"
    assert [t["function"]["name"] for t in first.json["tools"]] == ["get_current_time", "calculate", "web_search",
                                                                    "web_fetch"]
    assert first.json["stream"] is True and first.json["stream_options"] == {"include_usage": True}
    assert second.json["messages"][1]["tool_calls"][0]["function"]["arguments"] == '{"expression": "6*7"}'
    assert SECRET not in proc.stdout + proc.stderr


def test_plain_output_streams_answer_to_stdout_and_activity_to_stderr(model_server):
    proc = parley(*chat_args(model_server), stdin="What is 6 times 7?")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Let me compute that.\nThe answer is 42.\n"
    assert "[tool] calculate" in proc.stderr and "6*7 = 42" in proc.stderr
    assert "[reasoning] The tool said so." in proc.stderr


def test_no_stream_and_no_tools(loopback):
    loopback.always("POST", "/v1/chat/completions", Response.json({
        "id": "x", "model": "m", "choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi."},
                                              "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2}}))
    proc = parley("chat", "--base-url", loopback.url + "/v1", "--model", "m", "--no-stream", "--tools", "none",
                  "hello")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hi.\n"
    body = loopback.requests[0].json
    assert "stream" not in body and "tools" not in body
    assert loopback.requests[0].header("authorization") is None


def test_provider_error_exits_1_with_one_line_reason(loopback):
    loopback.always("POST", "/v1/chat/completions",
                    Response.json({"error": {"message": "Incorrect API key provided"}}, status=401))
    proc = parley(*chat_args(loopback), "hello")
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if "401" in line]
    assert len(lines) == 1 and lines[0].startswith("parley: ") and "Incorrect API key provided" in lines[0]
    assert all(line.startswith(("parley: ", "[")) for line in proc.stderr.splitlines()), proc.stderr
    assert loopback.count == 1  # 401 is not retried


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["chat", "hello"], "no default provider is set"),
        (["chat", "--model", "m", "--base-url", "ftp://x", "hi"], "must start with http"),
        (["chat", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--api-key-env", "NOPE_UNSET", "hi"],
         "NOPE_UNSET"),
        (["chat", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--tools", "nope", "hi"], "unknown tool"),
        (["chat", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--max-iterations", "0", "hi"],
         "at least 1"),
        (["chat", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--kind", "zzz", "hi"], "zzz"),
        (["chat", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "  "], "prompt is empty"),
    ],
)
def test_bad_usage_exits_2(args, message):
    save_engine_off()  # "chat hello" with nothing configured would otherwise be answered by the built-in engine
    proc = parley(*args, stdin="")
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr


def test_unreachable_server_is_a_run_error():
    proc = parley("chat", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--json", "hi")
    assert proc.returncode == 1
    events = [parse_event(line) for line in proc.stdout.splitlines()]
    error = next(e for e in events if e.type == "error")
    assert error.code == "connection_failed" and "127.0.0.1:9" in error.message


def test_interrupt_exits_130_and_keeps_partial_output(loopback):
    loopback.always("POST", "/v1/chat/completions", Response.sse(
        [{"id": "x", "model": "m", "choices": [{"index": 0, "delta": {"content": "partial answer"}}]}], hang=True))
    script = Path(sys.executable).with_name("parley")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "app.cli.entry"]
    proc = subprocess.Popen([*command, "chat", "--base-url", loopback.url + "/v1", "--model", "m", "--json", "hi"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
    lines: list[str] = []
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        lines.append(line)
        if '"type":"content"' in line:
            break
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    assert proc.returncode == 130
    events = [json.loads(line) for line in (lines + out.splitlines()) if line.strip()]
    assert events[-1]["type"] == "done" and events[-1]["finish_reason"] == "cancelled"


def test_tools_list_json():
    proc = parley("tools", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = {r["name"]: r for r in json.loads(proc.stdout)}
    assert rows["calculate"]["category"] == "utility" and rows["calculate"]["visibility"] == "hidden"
    assert rows["get_current_time"]["needs_approval"] is False
    plain = parley("tools", "list")
    assert plain.returncode == 0 and "calculate" in plain.stdout and "APPROVAL" in plain.stdout


def fetching_model(request: Request) -> Response | None:
    """Plays a model that asks web_fetch for a local address (which the default settings refuse), then answers."""
    if request.path == "/private":
        return Response.text("nobody should read this")
    if request.path != "/v1/chat/completions":
        return None
    tool_messages = [m for m in request.json["messages"] if m["role"] == "tool"]
    if not tool_messages:
        url = f"http://{request.header('host')}/private"
        return stream_response("", calls=[("call_f1", "web_fetch", {"url": url})])
    return stream_response("That address was refused.")


def test_web_tools_selected_by_name_and_local_fetch_refused():
    with LoopbackServer(handler=fetching_model) as server:
        proc = parley(*chat_args(server, "--json", "--tools", "web_search,web_fetch"), "Read my router page")
        assert proc.returncode == 0, proc.stderr
        first = server.requests_for("POST", "/v1/chat/completions")[0]
        assert [t["function"]["name"] for t in first.json["tools"]] == ["web_search", "web_fetch"]
        assert server.requests_for("GET", "/private") == []
    events = [parse_event(line) for line in proc.stdout.splitlines()]
    result = next(e for e in events if e is not None and e.type == "tool_result")
    assert (result.name, result.status, result.category) == ("web_fetch", "error", "search")
    assert "127.0.0.1 is a loopback address" in result.result
    assert result.data["kind"] == "fetch"


def notes_model(request: Request) -> Response | None:
    """Plays a model that reads notes.txt from the workspace, then repeats what the tool said."""
    if request.path != "/v1/chat/completions":
        return None
    tool_messages = [m for m in request.json["messages"] if m["role"] == "tool"]
    if not tool_messages:
        return stream_response("", calls=[("call_read1", "read_file", {"path": "notes.txt"})])
    return stream_response(f"Tool said: {tool_messages[0]['content']}")


@pytest.mark.parametrize(("flag", "expected"), [("all", "otter"), ("none", "denied by the user")])
def test_approve_flag_for_file_tools(tmp_path, flag, expected):
    from app.paths import resolve_paths
    from app.settings import Settings, save_settings

    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "notes.txt").write_text("the word is otter\n")
    save_settings(Settings(workspace_folders=[str(folder)]), resolve_paths().settings)
    with LoopbackServer(handler=notes_model) as server:
        proc = parley(*chat_args(server, "--tools", "read_file", "--approve", flag, "--no-save"), "read my notes")
    assert proc.returncode == 0, proc.stderr
    assert expected in proc.stdout


@pytest.mark.parametrize("body", [Response.body(b"", "text/event-stream"), Response.body(b"", "application/json"),
                                  Response.sse([], done=True)], ids=["empty-sse", "empty-json", "done-only"])
def test_an_answer_with_no_content_is_an_error_not_a_silent_stop(loopback, body):
    loopback.always("POST", "/v1/chat/completions", body)
    proc = parley(*chat_args(loopback, "--json"), "hello")
    assert proc.returncode == 1, proc.stderr
    events = [parse_event(line) for line in proc.stdout.splitlines()]
    error = next(e for e in events if e.type == "error")
    assert error.code == "empty_response" and "the server answered with no content" in error.message
    assert events[-1].type == "done" and events[-1].finish_reason == "error"


def test_call_timeout_stops_a_trickling_model_and_saves_the_partial_answer(loopback, parley_home):
    first = b'data: {"id": "x", "model": "m", "choices": [{"index": 0, "delta": {"content": "partial answer"}}]}\n\n'
    rest = b'data: {"id": "x", "model": "m", "choices": [{"index": 0, "delta": {"content": " more"}}]}\n\n'
    loopback.always("POST", "/v1/chat/completions", Response(
        headers={"Content-Type": "text/event-stream"}, chunks=[first, *[Chunk(bytes([b]), 0.2) for b in rest]]))
    proc = parley(*chat_args(loopback, "--call-timeout", "1"), "hi")
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.startswith("partial answer")
    assert "The model call took longer than 1 s (limit limits.model_call_timeout)" in proc.stderr
    shown = parley("history", "show", "1")
    assert shown.returncode == 0 and "partial answer" in shown.stdout and " more" not in shown.stdout
    with sqlite3.connect(parley_home / "data" / "history.db") as db:
        assert db.execute("SELECT status FROM messages WHERE role = 'assistant'").fetchall() == [("error",)]
        assert db.execute("SELECT status FROM runs").fetchall() == [("error",)]


@pytest.mark.parametrize(("value", "message"), [("0", "more than 0"), ("86401", "at most 86,400")])
def test_call_timeout_out_of_range_is_a_usage_error(value, message):
    proc = parley("chat", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--call-timeout", value, "hi")
    assert proc.returncode == 2 and message in proc.stderr


def test_a_provider_without_usage_gives_unknown_tokens(loopback, parley_home):
    chunks = [c for c in stream_chunks("Hi there.") if "usage" not in c]
    loopback.always("POST", "/v1/chat/completions", Response.sse(chunks, done=True))
    proc = parley(*chat_args(loopback, "--json", "--tools", "none"), "hello")
    assert proc.returncode == 0, proc.stderr
    events = [parse_event(line) for line in proc.stdout.splitlines()]
    (finished,) = [e for e in events if e.type == "model_call_finished"]
    assert finished.input_tokens is None and finished.output_tokens is None
    assert '"input_tokens":null' in proc.stdout and not [e for e in events if e.type == "usage"]
    with sqlite3.connect(parley_home / "data" / "history.db") as db:
        assert db.execute("SELECT input_tokens, output_tokens FROM runs").fetchall() == [(None, None)]


def writing_model(request: Request) -> Response | None:
    """Plays a model that writes todo.md in the workspace, then repeats what the tool said."""
    if request.path != "/v1/chat/completions":
        return None
    tool_messages = [m for m in request.json["messages"] if m["role"] == "tool"]
    if not tool_messages:
        return stream_response("", calls=[("call_w1", "write_file", {"path": "todo.md", "content": "- otter\n"})])
    return stream_response(f"Tool said: {tool_messages[0]['content']}")


@pytest.mark.parametrize(("flag", "written"), [("all", True), ("none", False)])
def test_approve_flag_for_the_write_tools(tmp_path, flag, written):
    from app.paths import resolve_paths
    from app.settings import Settings, save_settings

    folder = tmp_path / "work"
    folder.mkdir()
    save_settings(Settings(workspace_folders=[str(folder)], workspace_writable=[str(folder)]),
                  resolve_paths().settings)
    with LoopbackServer(handler=writing_model) as server:
        proc = parley(*chat_args(server, "--tools", "write_file", "--approve", flag, "--no-save"), "note otters")
    assert proc.returncode == 0, proc.stderr
    assert (folder / "todo.md").exists() is written
    assert ("Tool said: Created todo.md" if written else "Tool said: denied by the user") in proc.stdout
    if written:
        assert (folder / "todo.md").read_text() == "- otter\n"
    else:
        assert list(folder.iterdir()) == []
