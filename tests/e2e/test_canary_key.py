"""A canary API key used in full runs (a tool-using answer, and a provider error that echoes the key back)
never appears in the data directory, the settings file, or any export; nor when the user pastes it into a
prompt (the title) or the model echoes it in its answer, reasoning and tool calls, streamed in small pieces
(terminal and --json output, `history`, `search`, exports, stored run events)."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from app.paths import resolve_paths
from tests.support.cli_process import run_parley
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_response

CANARY = "sk-canary-test-key-not-real-5f3a9c1e"


def canary_model(request: Request) -> Response | None:
    """A tool-using model that insists on the canary key; asked to 'fail', it echoes the key in a 401 body."""
    if request.path != "/v1/chat/completions":
        return None
    if request.header("authorization") != f"Bearer {CANARY}":
        return Response.json({"error": {"message": "missing key"}}, status=400)
    last = request.json["messages"][-1]
    if last["role"] == "user" and "echo" in last["content"]:  # the key comes back in every kind of output
        return stream_response(f"Your key is {CANARY}, see?", reasoning=f"They pasted {CANARY} again.",
                               calls=[("call_1", "calculate", {"expression": CANARY})], piece=3)
    if last["role"] == "tool" and CANARY in last["content"]:
        return stream_response(f"{CANARY} is not arithmetic.", piece=5)
    if last["role"] == "user" and "fail" in last["content"]:
        return Response.json({"error": {"message": f"Incorrect API key provided: {CANARY}. See "
                                                   f"https://example.test/keys?key={CANARY}"}}, status=401)
    if last["role"] == "user":
        return stream_response("Computing.", calls=[("call_1", "calculate", {"expression": "6*7"})])
    return stream_response(f"The answer is {last['content'].split('=')[-1].strip()}.")


def key_source(kind: str) -> tuple[list[str], dict[str, str]]:
    """Chat flags and environment for using the key from the keyring or from an environment variable."""
    if kind == "keyring":
        stored = run_parley("keys", "set", "canary", stdin=CANARY + "\n")
        assert stored.returncode == 0, stored.stderr
        return [], {}
    return ["--api-key-env", "PARLEY_CANARY"], {"PARLEY_CANARY": CANARY}


@pytest.mark.parametrize("kind", [
    "environment",
    pytest.param("keyring", marks=[pytest.mark.secret_service, pytest.mark.skipif(
        not os.environ.get("DBUS_SESSION_BUS_ADDRESS"), reason="no D-Bus session (Secret Service)")]),
])
def test_canary_key_is_never_written(kind, tmp_path):
    with LoopbackServer(handler=canary_model) as server:
        added = run_parley("providers", "add", "canary", "--preset", "openai", "--base-url", server.url + "/v1",
                           "--model", "m")
        assert added.returncode == 0, added.stderr
        flags, env = key_source(kind)
        ok = run_parley("chat", *flags, "--json", "What is 6*7?", env=env)
        assert ok.returncode == 0, ok.stderr
        assert "The answer is 42." in "".join(
            json.loads(line).get("content", "") for line in ok.stdout.splitlines())
        failed = run_parley("chat", *flags, "please fail", env=env)
        assert failed.returncode == 1 and "Incorrect API key provided: [redacted]" in failed.stderr
        assert CANARY not in ok.stdout + ok.stderr + failed.stdout + failed.stderr
        assert server.count == 3 and all(r.header("authorization") == f"Bearer {CANARY}" for r in server.requests)
        for conversation in ("1", "2"):
            for fmt in ("md", "json"):
                exported = run_parley("export", conversation, "--format", fmt, "-o",
                                      str(tmp_path / f"export-{conversation}.{fmt}"))
                assert exported.returncode == 0, exported.stderr

    paths = resolve_paths()
    assert paths.database.exists() and paths.settings.exists()
    written = [p for root in (paths.data_dir, paths.config_dir, tmp_path) for p in root.rglob("*") if p.is_file()]
    assert len(written) >= 6
    leaks = [str(p) for p in written if CANARY.encode() in p.read_bytes()]
    assert leaks == []
    error = json.loads((tmp_path / "export-2.json").read_text())["runs"][0]["error"]
    assert "Incorrect API key provided: [redacted]" in error["message"] and error["status"] == 401
    if kind == "keyring":
        assert run_parley("keys", "delete", "canary").returncode == 0


ECHO_PROMPT = f"echo {CANARY} back to me"  # pasted into the prompt: the first line becomes the title


def canary_free(text: str) -> bool:
    return CANARY[:9] not in text


@pytest.mark.parametrize("kind", [
    "environment",
    pytest.param("keyring", marks=[pytest.mark.secret_service, pytest.mark.skipif(
        not os.environ.get("DBUS_SESSION_BUS_ADDRESS"), reason="no D-Bus session (Secret Service)")]),
])
def test_a_pasted_or_echoed_key_is_redacted_in_every_output(kind, tmp_path):
    with LoopbackServer(handler=canary_model) as server:
        added = run_parley("providers", "add", "canary", "--preset", "openai", "--base-url", server.url + "/v1",
                           "--model", "m")
        assert added.returncode == 0, added.stderr
        flags, env = key_source(kind)
        as_json = run_parley("chat", *flags, "--json", "--approve", "all", ECHO_PROMPT, env=env)
        assert as_json.returncode == 0, as_json.stderr
        events = [json.loads(line) for line in as_json.stdout.splitlines()]
        assert {"content", "reasoning", "tool_calls", "tool_result"} <= {e["type"] for e in events}
        for kind_of_text in ("content", "reasoning"):
            streamed = "".join(e.get("content", "") for e in events if e["type"] == kind_of_text)
            assert "[redacted]" in streamed and canary_free(streamed), streamed
        calls = [c["arguments"] for e in events if e["type"] == "tool_calls" for c in e["calls"]]
        results = [e["result"] for e in events if e["type"] == "tool_result"]
        assert calls and results and all("[redacted]" in text for text in calls + results)
        seqs = [e["seq"] for e in events]
        assert seqs == sorted(set(seqs))  # still strictly increasing

        in_terminal = run_parley("chat", *flags, "--approve", "all", ECHO_PROMPT, env=env)
        assert in_terminal.returncode == 0, in_terminal.stderr
        assert "Your key is [redacted], see?" in in_terminal.stdout

        outputs = [as_json.stdout, as_json.stderr, in_terminal.stdout, in_terminal.stderr]
        for command in (["history", "list"], ["history", "list", "--json"], ["history", "show", "1"],
                        ["history", "show", "1", "--json"], ["search", "echo"], ["search", "echo", "--json"],
                        ["export", "1", "--format", "md"], ["export", "2", "--format", "json"]):
            shown = run_parley(*command)
            assert shown.returncode == 0, (command, shown.stderr)
            outputs += [shown.stdout, shown.stderr]
        titles = [c["title"] for c in json.loads(run_parley("history", "list", "--json").stdout)]
        assert titles == ["echo [redacted] back to me"] * 2
        assert all(canary_free(text) for text in outputs), [t for t in outputs if not canary_free(t)]

    paths = resolve_paths()
    written = [p for root in (paths.data_dir, paths.config_dir) for p in root.rglob("*") if p.is_file()]
    assert [str(p) for p in written if CANARY[:9].encode() in p.read_bytes()] == []
    with sqlite3.connect(paths.database) as db:  # the stored stream, pieces joined, holds no key either
        for (run_id,) in db.execute("SELECT id FROM runs"):
            for kind_of_text in ("content", "reasoning"):
                pieces = [json.loads(r[0])["content"] for r in db.execute(
                    "SELECT event FROM run_events WHERE run_id = ? AND type = ? ORDER BY seq", [run_id, kind_of_text])]
                assert canary_free("".join(pieces))
    if kind == "keyring":
        assert run_parley("keys", "delete", "canary").returncode == 0
