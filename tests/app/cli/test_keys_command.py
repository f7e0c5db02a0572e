"""``parley keys``: keys go to the keyring only, are never printed, and a missing keyring is explained."""

from __future__ import annotations

import json

import pytest

from app.secrets import SERVICE
from tests.app.cli_helpers import run_cli

KEY = "test-key-not-real-keys-cli-42"


@pytest.fixture
def cli(capsys, monkeypatch):
    return lambda *argv, stdin="": run_cli(capsys, monkeypatch, *argv, stdin=stdin)


def files_text(root):
    return "".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file()) if root.exists() else ""


def test_set_list_delete_round_trip(cli, memory_keyring):
    assert cli("providers", "add", "openai", "--preset", "openai", "--model", "gpt-4o-mini").code == 0
    saved = cli("keys", "set", "openai", stdin=KEY + "\n")
    assert saved.code == 0 and "Saved provider:openai in the keyring" in saved.out
    assert memory_keyring.entries == {(SERVICE, "provider:openai"): KEY}
    listing = cli("keys", "list")
    assert listing.code == 0 and KEY not in listing.out
    lines = dict(line.split(maxsplit=1) for line in listing.out.splitlines()[1:])
    assert lines["provider:openai"] == "keyring" and lines["search:tavily"] == "not set"
    as_json = json.loads(cli("keys", "list", "--json").out)
    assert {"name": "search:brave", "stored": "not set"} in as_json["keys"] and as_json["usable"]
    assert cli("keys", "set", "search:tavily", stdin=KEY).code == 0
    assert cli("keys", "delete", "openai").out.strip() == "Deleted provider:openai from the keyring."
    assert cli("keys", "delete", "openai").out.strip() == "No key was stored for provider:openai."
    assert set(memory_keyring.entries) == {(SERVICE, "search:tavily")}


def test_status_reports_a_working_keyring(cli, memory_keyring):
    result = cli("keys", "status")
    assert result.code == 0 and "The keyring works" in result.out and "MemoryKeyring" in result.out


def test_missing_keyring_refuses_plainly_and_writes_nothing(cli, no_keyring, parley_home):
    result = cli("keys", "set", "openai", stdin=KEY)
    assert result.code == 1
    assert "No OS keyring is available" in result.err and "does not store keys in plain files" in result.err
    assert "--api-key-env" in result.err
    assert KEY not in files_text(parley_home)
    status = cli("keys", "status")
    assert status.code == 1 and status.err.startswith("parley: the keyring cannot store keys: ")
    assert all(line.startswith("parley: ") for line in status.err.splitlines()), status.err
    listing = cli("keys", "list")
    assert listing.code == 0 and "keyring unavailable" in listing.out


def test_locked_keyring_is_explained(cli, locked_keyring):
    result = cli("keys", "set", "openai", stdin=KEY)
    assert result.code == 1 and "locked" in result.err


@pytest.mark.parametrize(("argv", "stdin", "message"), [
    (("keys", "set", "search:altavista"), KEY, "unknown search backend"),
    (("keys", "set", "openai"), "  \n", "the key is empty"),
    (("keys", "set", "openai"), "one\ntwo", "several lines"),
    (("keys", "delete", "bad name"), "", "not a valid name"),
])
def test_bad_input_is_usage_error(cli, memory_keyring, argv, stdin, message):
    result = cli(*argv, stdin=stdin)
    assert result.code == 2 and message in result.err
    assert memory_keyring.entries == {}


def test_list_includes_the_secrets_of_mcp_servers(cli, memory_keyring):
    assert cli("mcp", "add", "docs", "--url", "https://mcp.example/mcp", "--secret-header", "Authorization").code == 0
    assert cli("keys", "set", "mcp:docs:Authorization", stdin=KEY).code == 0
    rows = {r["name"]: r["stored"] for r in json.loads(cli("keys", "list", "--json").out)["keys"]}
    assert rows["mcp:docs:Authorization"] == "keyring"
    assert memory_keyring.entries[(SERVICE, "mcp:docs:Authorization")] == KEY
