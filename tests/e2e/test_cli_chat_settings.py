"""``parley chat`` and a conversation's chat settings, as real processes against a loopback model: the flags
reach the request and are kept; ``-c ID`` continues with the kept settings unless a flag says otherwise; a
setting the provider cannot take is refused with the reason (exit 2) before anything is saved."""

from __future__ import annotations

import pytest

from app.paths import resolve_paths
from app.settings import load_settings, save_settings
from tests.support.cli_process import run_parley
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_response


def answer(request: Request) -> Response | None:
    return stream_response("Fine.") if request.path == "/v1/chat/completions" else None


@pytest.fixture
def server():
    with LoopbackServer(handler=answer) as running:
        assert run_parley("providers", "add", "local", "--base-url", running.url + "/v1",
                          "--model", "m1").returncode == 0
        yield running


def sent(request: Request) -> tuple:
    body = request.json
    first = body["messages"][0]
    return (body["model"], first["content"] if first["role"] == "system" else None, body.get("temperature"),
            body.get("max_tokens"), sorted(t["function"]["name"] for t in body.get("tools", [])))


def test_flags_are_kept_and_continued_with(server):
    first = run_parley("chat", "--system", "Be brief.", "--temperature", "0.4", "--max-output-tokens", "300",
                       "--tools", "calculate", "hi")
    assert first.returncode == 0, first.stderr
    assert sent(server.requests[-1]) == ("m1", "Be brief.", 0.4, 300, ["calculate"])

    again = run_parley("chat", "-c", "1", "and then?")
    assert again.returncode == 0, again.stderr
    assert sent(server.requests[-1]) == ("m1", "Be brief.", 0.4, 300, ["calculate"])

    changed = run_parley("chat", "-c", "1", "--temperature", "1.1", "--tools", "all", "more")
    assert changed.returncode == 0, changed.stderr
    model, system, temperature, tokens, tools = sent(server.requests[-1])
    assert (model, system, temperature, tokens) == ("m1", "Be brief.", 1.1, 300) and len(tools) > 1
    run_parley("chat", "-c", "1", "last")
    assert sent(server.requests[-1])[2] == 1.1  # what was sent last is what is kept


def test_a_setting_the_provider_cannot_take_is_refused(server):
    refused = run_parley("chat", "--reasoning-effort", "high", "hi")
    assert refused.returncode == 2
    assert "--reasoning-effort: " in refused.stderr and "no reasoning-effort setting" in refused.stderr
    assert server.requests == []
    assert run_parley("history", "list", "--json").stdout.strip() == "[]"


def test_a_new_chat_starts_with_the_default_system_prompt(server):
    path = resolve_paths().settings
    settings = load_settings(path).settings
    settings.chat.system_prompt = "You are terse."
    save_settings(settings, path)
    assert run_parley("chat", "hi").returncode == 0
    assert sent(server.requests[-1])[1] == "You are terse."
    assert run_parley("chat", "--system", "", "hi").returncode == 0
    assert sent(server.requests[-1])[1] is None
