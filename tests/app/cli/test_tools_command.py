"""``parley tools list`` shows what a run would offer under the user's settings: the approval policy each tool
gets (ask, allow, deny), and tools that are off (denied, or file tools without a workspace folder) with why."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.paths import resolve_paths
from app.settings import Settings
from app.settings.store import save_settings
from tests.app.cli_helpers import run_cli


def _save(settings: Settings) -> None:
    save_settings(settings, resolve_paths().settings)


def _rows(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, object]]:
    result = run_cli(capsys, monkeypatch, "tools", "list", "--json")
    assert result.code == 0, result.err
    return {row["name"]: row for row in json.loads(result.out)}


def test_denied_tool_is_listed_as_denied_and_not_offered(capsys, monkeypatch):
    settings = Settings()
    settings.tools.approval["web_fetch"] = "deny"
    settings.tools.approval["calculate"] = "ask"
    _save(settings)
    rows = _rows(capsys, monkeypatch)
    assert rows["web_fetch"]["approval"] == "deny"
    assert rows["web_fetch"]["offered"] is False
    assert "denied" in str(rows["web_fetch"]["reason"])
    assert rows["calculate"]["approval"] == "ask" and rows["calculate"]["needs_approval"] is True
    assert rows["get_current_time"]["approval"] == "allow" and rows["get_current_time"]["offered"] is True


def test_file_tools_without_a_workspace_are_listed_as_off(capsys, monkeypatch):
    rows = _rows(capsys, monkeypatch)
    for name in ("list_directory", "read_file", "search_files"):
        assert rows[name]["offered"] is False
        assert "workspace folder" in str(rows[name]["reason"])


def test_file_tools_with_a_workspace_are_offered_with_their_policy(capsys, monkeypatch, tmp_path: Path):
    settings = Settings(workspace_folders=[str(tmp_path)])
    settings.tools.approval["read_file"] = "allow"
    _save(settings)
    rows = _rows(capsys, monkeypatch)
    assert rows["read_file"]["offered"] is True and rows["read_file"]["approval"] == "allow"
    assert rows["search_files"]["offered"] is True and rows["search_files"]["approval"] == "ask"


def test_table_shows_the_policy_and_why_a_tool_is_off(capsys, monkeypatch):
    settings = Settings()
    settings.tools.approval["web_fetch"] = "deny"
    _save(settings)
    result = run_cli(capsys, monkeypatch, "tools", "list")
    assert result.code == 0, result.err
    fetch_line = next(line for line in result.out.splitlines() if line.startswith("web_fetch "))
    assert " deny " in fetch_line and "off:" in fetch_line
    read_line = next(line for line in result.out.splitlines() if line.startswith("read_file "))
    assert "off: no workspace folder" in read_line


def test_write_tools_follow_the_read_write_folders(capsys, monkeypatch, tmp_path: Path):
    rows = _rows(capsys, monkeypatch)
    assert rows["write_file"]["offered"] is False and "no workspace folder" in str(rows["write_file"]["reason"])
    _save(Settings(workspace_folders=[str(tmp_path)]))
    rows = _rows(capsys, monkeypatch)
    assert rows["read_file"]["offered"] is True
    for name in ("write_file", "edit_file"):
        assert rows[name]["offered"] is False and "no read-write workspace folder" in str(rows[name]["reason"])
    settings = Settings(workspace_folders=[str(tmp_path)], workspace_writable=[str(tmp_path)])
    settings.tools.approval["edit_file"] = "deny"
    _save(settings)
    rows = _rows(capsys, monkeypatch)
    assert rows["write_file"]["offered"] is True and rows["write_file"]["approval"] == "ask"
    assert rows["edit_file"]["offered"] is False and rows["edit_file"]["approval"] == "deny"
