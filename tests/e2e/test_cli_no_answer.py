"""A chat that ends without answer text says so on stderr and exits 3 (real processes against a loopback
model), so a script can tell "no answer" from an answer."""

from __future__ import annotations

from orchestration.events import parse_event
from tests.support.cli_process import run_parley
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_response

EXIT_NO_ANSWER = 3
KEY = {"PARLEY_TEST_KEY": "test-key-not-a-real-secret"}


def chat(server: LoopbackServer, *extra: str) -> list[str]:
    return ["chat", "--kind", "openai", "--base-url", server.url + "/v1", "--model", "m",
            "--api-key-env", "PARLEY_TEST_KEY", "--no-save", *extra]


def always_tools(request: Request) -> Response | None:
    """Plays a model that asks for two tools on every call, its final (tool_choice none) call too."""
    if request.path != "/v1/chat/completions":
        return None
    turn = len([m for m in request.json["messages"] if m["role"] == "assistant"])
    return stream_response(calls=[(f"c{turn}a", "calculate", {"expression": "1+1"}),
                                  (f"c{turn}b", "calculate", {"expression": "2+2"})])


def test_a_final_call_with_only_tool_calls_says_so_and_exits_3():
    with LoopbackServer(handler=always_tools) as server:
        proc = run_parley(*chat(server, "--max-iterations", "1"), "add things", env=KEY)
    assert proc.returncode == EXIT_NO_ANSWER, proc.stderr
    assert proc.stdout == ""
    assert "parley: the model sent no text (2 tool calls were asked for and not run)" in proc.stderr.splitlines()
    assert "parley: warning: The model asked for tools in its final answer call" in proc.stderr
    assert not [line for line in proc.stderr.splitlines() if line.startswith("[warning]")]


def test_an_empty_answer_says_so_and_exits_3():
    with LoopbackServer(handler=lambda request: stream_response("  \n")) as server:
        proc = run_parley(*chat(server, "--tools", "none"), "hello", env=KEY)
    assert proc.returncode == EXIT_NO_ANSWER, proc.stderr
    assert proc.stdout.strip() == ""
    assert "parley: the model sent an empty answer" in proc.stderr.splitlines()


def test_json_output_exits_3_with_its_events_unchanged():
    with LoopbackServer(handler=lambda request: stream_response(" ")) as server:
        proc = run_parley(*chat(server, "--tools", "none", "--json"), "hello", env=KEY)
    assert proc.returncode == EXIT_NO_ANSWER, proc.stderr
    events = [parse_event(line) for line in proc.stdout.splitlines()]
    assert events[-1] is not None and events[-1].type == "done" and events[-1].finish_reason == "stop"
    assert "parley: the model sent an empty answer" in proc.stderr


def test_an_answer_exits_0_without_a_note():
    with LoopbackServer(handler=lambda request: stream_response("Hi.")) as server:
        proc = run_parley(*chat(server, "--tools", "none"), "hello", env=KEY)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "Hi.\n" and "the model sent" not in proc.stderr
