"""The options every command shares (``--data-dir``, and ``--json`` where an action offers it) work after the
command and its action as well as before them; ``--json`` before an action that prints no JSON is a clear usage
error rather than ignored."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli.entry import build_parser
from app.paths import resolve_paths
from app.settings import Settings
from app.settings.store import save_settings
from tests.app.cli_helpers import run_cli


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield (*path, name), child
                yield from _commands(child, (*path, name))


def _has_actions(parser: argparse.ArgumentParser) -> bool:
    return any(isinstance(action, argparse._SubParsersAction) for action in parser._actions)


def test_every_command_and_action_takes_data_dir_after_it():
    missing = [" ".join(path) for path, parser in _commands(build_parser())
               if "--data-dir" not in parser._option_string_actions]
    assert missing == []


def test_every_command_whose_action_prints_json_takes_json_before_the_action():
    missing = []
    for path, parser in _commands(build_parser()):
        offers = any("--json" in child._option_string_actions for _, child in _commands(parser))
        if _has_actions(parser) and offers and "--json" not in parser._option_string_actions:
            missing.append(" ".join(path))
    assert missing == []


def _deny_web_fetch(home: Path) -> None:
    settings = Settings()
    settings.tools.approval["web_fetch"] = "deny"
    save_settings(settings, resolve_paths(str(home)).settings)


@pytest.mark.parametrize("argv", [
    ["tools", "list", "--json", "--data-dir", "{home}"],
    ["tools", "--data-dir", "{home}", "list", "--json"],
    ["--data-dir", "{home}", "tools", "list", "--json"],
    ["tools", "--json", "list", "--data-dir", "{home}"],
    ["--json", "tools", "list", "--data-dir", "{home}"],
])
def test_tools_list_reads_the_data_dir_and_prints_json_wherever_the_options_stand(capsys, monkeypatch, tmp_path,
                                                                                   argv):
    home = tmp_path / "elsewhere"
    _deny_web_fetch(home)
    result = run_cli(capsys, monkeypatch, *[word.format(home=home) for word in argv])
    assert result.code == 0, result.err
    rows = {row["name"]: row for row in json.loads(result.out)}
    assert rows["web_fetch"]["approval"] == "deny"


def test_history_json_before_the_action_lists_the_data_dirs_conversations(capsys, monkeypatch, tmp_path):
    home = tmp_path / "elsewhere"
    result = run_cli(capsys, monkeypatch, "history", "--json", "list", "--data-dir", str(home))
    assert result.code == 0, result.err
    assert json.loads(result.out) == []
    assert (home / "data").is_dir()


def test_json_before_an_action_without_json_output_is_a_clear_usage_error(capsys, monkeypatch, tmp_path):
    result = run_cli(capsys, monkeypatch, "history", "--json", "rename", "1", "new title",
                     "--data-dir", str(tmp_path))
    assert result.code == 2
    assert "--json" in result.err and "history rename" in result.err


def test_json_with_no_command_is_a_usage_error_not_the_window(capsys, monkeypatch):
    result = run_cli(capsys, monkeypatch, "--json")
    assert result.code == 2
    assert "--json" in result.err
