"""``parley chat --kind ...`` and ``parley models`` as real processes against loopback servers that play each
wire format."""

from __future__ import annotations

import json

import pytest

from orchestration.events import parse_event
from tests.e2e.test_cli_chat import SECRET, parley
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.provider_wire import anthropic_stream, cohere_stream, gemini_stream, ollama_stream, responses_stream


def anthropic_model(request: Request) -> Response | None:
    if len(request.json["messages"]) == 1:
        return anthropic_stream(thinking="Compute it.", signature="S", calls=[("toolu_1", "calculate",
                                                                              {"expression": "6*7"})])
    return anthropic_stream(text="The answer is 42.")


def gemini_model(request: Request) -> Response | None:
    if len(request.json["contents"]) == 1:
        return gemini_stream(calls=[(None, "calculate", {"expression": "6*7"})], signature="G")
    return gemini_stream(text="The answer is 42.")


def ollama_model(request: Request) -> Response | None:
    if len(request.json["messages"]) == 1:
        return ollama_stream(calls=[(None, "calculate", {"expression": "6*7"})])
    return ollama_stream(text="<think>easy</think>The answer is 42.")


def responses_model(request: Request) -> Response | None:
    if len(request.json["input"]) == 1 and "previous_response_id" not in request.json:
        return responses_stream(calls=[("call_1", "calculate", {"expression": "6*7"})])
    return responses_stream(text="The answer is 42.")


def cohere_model(request: Request) -> Response | None:
    if len(request.json["messages"]) == 1:
        return cohere_stream(plan="Use the calculator.", calls=[("c1", "calculate", '{"expression": "6*7"}')])
    return cohere_stream(text="The answer is 42.")


CASES = [
    ("anthropic", "/v1", anthropic_model, "/v1/messages"),
    ("gemini", "/v1beta", gemini_model, "/v1beta/models/m:streamGenerateContent"),
    ("ollama", "", ollama_model, "/api/chat"),
    ("openai-responses", "/v1", responses_model, "/v1/responses"),
    ("cohere", "", cohere_model, "/v2/chat"),
]


@pytest.mark.parametrize(("kind", "suffix", "model", "path"), CASES, ids=[c[0] for c in CASES])
def test_chat_kind_runs_a_tool_using_turn(kind: str, suffix: str, model, path: str) -> None:
    with LoopbackServer(handler=model) as server:
        proc = parley("chat", "--kind", kind, "--base-url", server.url + suffix, "--model", "m", "--api-key-env",
                      "PARLEY_TEST_KEY", "--tools", "calculate", "--json", "What is 6 times 7?")
        requests = server.requests
    assert proc.returncode == 0, proc.stderr
    events = [parse_event(line) for line in proc.stdout.splitlines()]
    result = next(e for e in events if e.type == "tool_result")
    assert (result.name, result.status, result.result) == ("calculate", "ok", "6*7 = 42")
    assert "".join(e.content for e in events if e.type == "content") == "The answer is 42."
    assert events[-1].type == "done" and events[-1].finish_reason == "stop"
    assert [r.path for r in requests] == [path, path]
    assert SECRET not in proc.stdout + proc.stderr


def test_chat_kind_error_prints_the_message_and_exits_1(loopback: LoopbackServer) -> None:
    loopback.always("POST", "/v1/messages", Response.json(
        {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}, status=401))
    proc = parley("chat", "--kind", "anthropic", "--base-url", loopback.url + "/v1", "--model", "m",
                  "--api-key-env", "PARLEY_TEST_KEY", "hello")
    assert proc.returncode == 1
    assert "The Anthropic API key was rejected (401). Check it in Preferences > Providers." in proc.stderr
    assert loopback.requests[0].header("x-api-key") == SECRET


def test_idle_timeout_flag(loopback: LoopbackServer) -> None:
    loopback.always("POST", "/api/chat", Response(headers={"Content-Type": "application/x-ndjson"},
                                                  chunks=[b'{"message": {"content": "Hi"}, "done": false}\n'],
                                                  hang=True))
    proc = parley("chat", "--kind", "ollama", "--base-url", loopback.url, "--model", "m", "--idle-timeout", "0.3",
                  "--tools", "none", "hello")
    assert proc.returncode == 1
    assert "sent nothing for 0.3 s" in proc.stderr and proc.stdout.startswith("Hi")


def test_models_lists_a_providers_models(loopback: LoopbackServer) -> None:
    loopback.always("GET", "/api/tags", Response.json({"models": [{"name": "qwen3:8b"}, {"name": "gemma3"}]}))
    proc = parley("models", "--kind", "ollama", "--base-url", loopback.url)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["qwen3:8b", "gemma3"]
    loopback.always("GET", "/v1/models", Response.json({"data": [{"id": "claude-x", "display_name": "Claude X"}]}))
    as_json = parley("models", "--provider", "anthropic", "--base-url", loopback.url + "/v1", "--json")
    assert json.loads(as_json.stdout) == [{"id": "claude-x", "name": "Claude X"}]


def test_models_error_exits_1(loopback: LoopbackServer) -> None:
    loopback.always("GET", "/v1/models", Response.json({"error": {"message": "nope"}}, status=403))
    proc = parley("models", "--kind", "openai", "--base-url", loopback.url + "/v1")
    assert proc.returncode == 1 and "refused access (403)" in proc.stderr and "nope" in proc.stderr
