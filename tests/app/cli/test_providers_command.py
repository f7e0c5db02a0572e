"""``parley providers``: providers in the settings file, with no key in it."""

from __future__ import annotations

import json

import pytest

from app.paths import resolve_paths
from app.settings import load_settings
from tests.app.cli_helpers import run_cli


@pytest.fixture
def cli(capsys, monkeypatch, memory_keyring):
    return lambda *argv, stdin="": run_cli(capsys, monkeypatch, *argv, stdin=stdin)


def settings():
    return load_settings(resolve_paths().settings).settings


def test_add_list_remove(cli):
    first = cli("providers", "add", "local", "--base-url", "http://127.0.0.1:8080/v1", "--model", "qwen3")
    assert first.code == 0 and "the default" in first.out and "keys set" not in first.out
    second = cli("providers", "add", "openai", "--preset", "openai", "--header", "OpenAI-Organization: org-1")
    assert second.code == 0 and "parley keys set openai" in second.out
    assert settings().default_provider == "local"
    assert cli("providers", "add", "groq", "--preset", "groq", "--default").code == 0
    current = settings()
    assert current.default_provider == "groq"
    assert current.provider("openai").base_url == "https://api.openai.com/v1"
    assert current.provider("openai").headers == {"OpenAI-Organization": "org-1"}
    rows = json.loads(cli("providers", "list", "--json").out)
    assert [(r["id"], r["default"], r["key"]) for r in rows] == [("local", False, "none"), ("openai", False, "none"),
                                                                 ("groq", True, "none")]
    table = cli("providers", "list").out
    assert "* groq" in table and "qwen3" in table
    removed = cli("providers", "remove", "groq")
    assert removed.code == 0 and "parley keys delete groq" in removed.out
    assert settings().default_provider is None and [p.id for p in settings().providers] == ["local", "openai"]


@pytest.mark.parametrize(("argv", "message"), [
    (("providers", "add", "x"), "--base-url is needed"),
    (("providers", "add", "x", "--base-url", "ftp://x"), "base_url"),
    (("providers", "add", "bad name", "--base-url", "http://x"), "id"),
    (("providers", "add", "x", "--base-url", "http://x", "--header", "Authorization: Bearer test-key-not-real"),
     "parley keys set"),
    (("providers", "add", "x", "--base-url", "http://x", "--header", "no-colon"), "expected 'Name: value'"),
    (("providers", "add", "x", "--base-url", "http://x", "--kind", "telepathy"), "not supported"),
    (("providers", "remove", "ghost"), "no provider 'ghost'"),
])
def test_bad_input_is_refused_and_nothing_saved(cli, argv, message):
    result = cli(*argv)
    assert result.code == 2 and message in result.err
    assert not resolve_paths().settings.exists()


def test_duplicate_is_refused(cli):
    assert cli("providers", "add", "local", "--base-url", "http://127.0.0.1:1/v1").code == 0
    again = cli("providers", "add", "local", "--base-url", "http://127.0.0.1:2/v1")
    assert again.code == 2 and "already a provider" in again.err
    assert settings().provider("local").base_url == "http://127.0.0.1:1/v1"


def test_invalid_settings_file_is_reported_and_kept(cli):
    path = resolve_paths().settings
    path.parent.mkdir(parents=True)
    path.write_text('{"providers": "oops"}')
    result = cli("providers", "list")
    assert result.code == 0 and "warning" in result.err and str(path) in result.err and "providers" in result.err
    (backup,) = path.parent.iterdir()
    assert backup.name.startswith("settings.json.bad-") and backup.read_text() == '{"providers": "oops"}'


def test_a_deep_settings_file_breaks_no_command(cli):
    path = resolve_paths().settings
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[" * 1_100 + "]" * 1_100)
    listed = cli("providers", "list")
    assert listed.code == 0 and "nested more than 100 levels deep" in listed.err and "Traceback" not in listed.err
    assert not path.exists() and list(path.parent.glob("settings.json.bad-*"))
    assert cli("providers", "add", "local", "--base-url", "http://127.0.0.1:8080/v1").code == 0


def test_list_table_lines_up_and_says_which_key_is_missing(cli):
    assert cli("providers", "add", "local", "--base-url", "http://127.0.0.1:8080/v1", "--model",
               "qwen3-coder-30b-a3b-instruct").code == 0
    assert cli("providers", "add", "openai", "--preset", "openai", "--model", "gpt-5").code == 0
    header, *lines = cli("providers", "list").out.splitlines()
    for column in ("KIND", "KEY", "MODEL", "BASE URL"):
        start = header.index(column)
        assert all(line[start - 2:start] == "  " and line[start] != " " for line in lines), (column, header, lines)
    key = header.index("KEY")
    assert [line[key:header.index("MODEL")].strip() for line in lines] == ["not needed", "missing"], lines
    rows = json.loads(cli("providers", "list", "--json").out)
    assert [(r["key"], r["key_required"]) for r in rows] == [("none", False), ("none", True)]
