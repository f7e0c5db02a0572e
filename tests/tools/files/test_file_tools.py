"""list_directory, read_file and search_files on real folders in a temporary directory."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from orchestration.tool_api import ToolArgumentsError, ToolContext, ToolOutput
from tools.files import WorkspaceSettings, workspace_tools
from tools.files import search_files as search_files_module
from tools.registry import Tool

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("password = hunter2\n")
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("import os\n\ndef main():\n    print('hello')\n")
    (root / "src" / "util.py").write_text("def helper():\n    return 'hello again'\n")
    (root / "README.md").write_text("# Project\nSay hello.\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200))
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("hello from git\n")
    (root / "leak.txt").symlink_to(outside / "secret.txt")
    (root / "leakdir").symlink_to(outside)
    (root / "alias.py").symlink_to(root / "src" / "app.py")
    return root


def tools_for(*folders: Path, **settings: Any) -> dict[str, Tool]:
    return {t.name: t for t in workspace_tools(WorkspaceSettings(folders=list(folders), **settings))}


async def call(tool: Tool, **arguments: Any) -> ToolOutput:
    output = await tool.invoke(tool.validate(arguments), ToolContext(run_id="r", call_id="c"))
    assert isinstance(output, ToolOutput)
    return output


def test_no_folder_means_no_file_tools() -> None:
    assert workspace_tools(WorkspaceSettings()) == []


def test_metadata_and_approval_policy(ws: Path) -> None:
    asking = tools_for(ws)
    assert sorted(asking) == ["list_directory", "read_file", "search_files"]
    for tool in asking.values():
        assert (tool.category, tool.needs_approval) == ("file", True)
        assert str(ws) in tool.description or tool.name != "list_directory"
    assert all(not t.needs_approval for t in tools_for(ws, approval="allow").values())


def test_settings_expand_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert WorkspaceSettings(folders=["~/notes"]).folders == [tmp_path / "notes"]  # type: ignore[list-item]


# --- list_directory ---------------------------------------------------------------------------------------------


async def test_list_directory(ws: Path) -> None:
    output = await call(tools_for(ws)["list_directory"])
    assert output.text.splitlines() == [
        "Contents of . (2 folders, 5 other entries):",
        ".git/",
        "src/",
        "alias.py  42 B  -> src/app.py",
        "leak.txt@  -> outside the workspace (not followed)",
        "leakdir@  -> outside the workspace (not followed)",
        "logo.png  216 B",
        "README.md  21 B",
    ]


async def test_list_directory_counts(ws: Path) -> None:
    output = await call(tools_for(ws)["list_directory"], path="src")
    assert output.text.splitlines()[0] == "Contents of src (0 folders, 2 other entries):"
    assert [e["name"] for e in output.data["entries"]] == ["app.py", "util.py"]
    assert output.data["kind"] == "directory" and output.data["truncated"] is False


async def test_list_directory_refusals(ws: Path) -> None:
    tool = tools_for(ws)["list_directory"]
    escape = await call(tool, path="..")
    assert escape.is_error and "leads outside the workspace" in escape.text
    link = await call(tool, path="leakdir")
    assert link.is_error and "symbolic link" in link.text
    file = await call(tool, path="README.md")
    assert file.is_error and "is a file, not a folder" in file.text
    missing = await call(tool, path="nope")
    assert missing.is_error and "does not exist" in missing.text


async def test_list_directory_cap(ws: Path) -> None:
    many = ws / "many"
    many.mkdir()
    for i in range(15):
        (many / f"f{i:02}.txt").write_text("x")
    output = await call(tools_for(ws, max_list_entries=10)["list_directory"], path="many")
    assert output.text.endswith("[showing the first 10 of 15 entries]") and output.data["truncated"]


async def test_several_folders_listed_at_the_top(ws: Path, tmp_path: Path) -> None:
    other = tmp_path / "docs"
    other.mkdir()
    output = await call(tools_for(ws, other)["list_directory"], path=".")
    assert output.text == f"Workspace folders:\nproject/  ({ws})\ndocs/  ({other})"


# --- read_file ----------------------------------------------------------------------------------------------------


async def test_read_file_numbers_lines(ws: Path) -> None:
    output = await call(tools_for(ws)["read_file"], path="src/app.py")
    assert output.text == ("src/app.py (lines 1-4 of 4):\n     1  import os\n     2  \n     3  def main():\n"
                           "     4      print('hello')")
    assert output.data == {"kind": "file", "path": "src/app.py", "start_line": 1, "end_line": 4, "total_lines": 4,
                           "truncated": False}


async def test_read_file_line_range(ws: Path) -> None:
    output = await call(tools_for(ws)["read_file"], path="src/app.py", start_line=3, end_line=4)
    assert output.text.splitlines() == ["src/app.py (lines 3-4 of 4):", "     3  def main():",
                                        "     4      print('hello')"]


async def test_read_file_limits_continue_with_a_start_line(ws: Path) -> None:
    (ws / "long.txt").write_text("".join(f"line {i} of a longer text\n" for i in range(1, 101)))
    output = await call(tools_for(ws, max_read_lines=10)["read_file"], path="long.txt", start_line=5)
    lines = output.text.splitlines()
    assert lines[0] == "long.txt (lines 5-14 of 100):"
    assert lines[-1] == "[showing lines 5-14; continue with start_line=15]"
    assert output.data["truncated"] is True
    by_bytes = await call(tools_for(ws, max_read_bytes=1_000)["read_file"], path="long.txt")
    assert "continue with start_line=" in by_bytes.text
    assert sum(len(line) for line in by_bytes.text.splitlines()[1:-1]) < 1_000 + 8 * 150


async def test_read_file_cuts_one_overlong_line(ws: Path) -> None:
    (ws / "min.js").write_text("x" * 5_000 + "\nnext\n")
    output = await call(tools_for(ws, max_read_bytes=1_000)["read_file"], path="min.js")
    assert "[line cut: it is 5,001 bytes long]" in output.text
    assert output.text.endswith("[showing lines 1-1; continue with start_line=2]")


@pytest.mark.parametrize(("arguments", "phrase"), [
    ({"path": "logo.png"}, "is a binary file"),
    ({"path": "src"}, "is a folder; list it with list_directory"),
    ({"path": "missing.txt"}, "does not exist"),
    ({"path": "../outside/secret.txt"}, "leads outside the workspace"),
    ({"path": "leak.txt"}, "symbolic link"),
    ({"path": "leakdir/secret.txt"}, "symbolic link"),
    ({"path": "/etc/passwd"}, "is outside the workspace"),
    ({"path": "src/app.py", "start_line": 9}, "has only 4 lines; start_line 9 is past the end"),
])
async def test_read_file_refusals(ws: Path, arguments: dict[str, Any], phrase: str) -> None:
    output = await call(tools_for(ws)["read_file"], **arguments)
    assert output.is_error and phrase in output.text
    assert "hunter2" not in output.text


async def test_read_file_size_limit(ws: Path) -> None:
    (ws / "big.txt").write_text("y" * 5_000)
    output = await call(tools_for(ws, max_file_bytes=4_096)["read_file"], path="big.txt")
    assert output.is_error and output.text == "big.txt is 4.9 KiB; read_file opens files up to 4.0 KiB."


def test_read_file_range_order() -> None:
    tool = tools_for(Path("/tmp"))["read_file"]
    with pytest.raises(ToolArgumentsError, match=r"end_line \(2\) is before start_line \(5\)"):
        tool.validate({"path": "x", "start_line": 5, "end_line": 2})


async def test_read_empty_file(ws: Path) -> None:
    (ws / "empty.txt").write_text("")
    assert (await call(tools_for(ws)["read_file"], path="empty.txt")).text == "empty.txt is empty."


async def test_read_file_through_a_link_inside(ws: Path) -> None:
    output = await call(tools_for(ws)["read_file"], path="alias.py")
    assert output.text.startswith("src/app.py (lines 1-4 of 4):")


# --- search_files -------------------------------------------------------------------------------------------------


async def test_search_files_finds_lines(ws: Path) -> None:
    output = await call(tools_for(ws)["search_files"], query="HELLO")
    assert output.text.splitlines() == [
        "4 matches for 'HELLO' in . (4 files searched):",
        "README.md:2: Say hello.",
        "alias.py:4: print('hello')",
        "src/app.py:4: print('hello')",
        "src/util.py:2: return 'hello again'",
    ]
    assert output.data["matches"][0] == {"path": "README.md", "line": 2, "text": "Say hello."}
    assert "hunter2" not in output.text and ".git" not in output.text


async def test_search_files_options(ws: Path) -> None:
    search = tools_for(ws)["search_files"]
    case = await call(search, query="HELLO", case_sensitive=True)
    assert case.text.startswith("No matches for 'HELLO' in .")
    regex = await call(search, query=r"def \w+\(\)", regex=True, path="src")
    assert [m["path"] for m in regex.data["matches"]] == ["src/app.py", "src/util.py"]
    glob = await call(search, query="hello", glob="*.md")
    assert [m["path"] for m in glob.data["matches"]] == ["README.md"]
    path_glob = await call(search, query="hello", glob="src/*.py")
    assert [m["path"] for m in path_glob.data["matches"]] == ["src/app.py", "src/util.py"]
    literal = await call(search, query="print('hello')")
    assert len(literal.data["matches"]) == 2


async def test_search_files_result_cap(ws: Path) -> None:
    (ws / "many.txt").write_text("match\n" * 50)
    output = await call(tools_for(ws, max_search_results=5)["search_files"], query="match", path="many.txt")
    assert len(output.data["matches"]) == 5 and output.data["truncated"] is True
    assert output.text.endswith("[stopped early: found more than 5 matching lines (the limit); narrow the search "
                                "with path or glob]")


async def test_search_files_file_cap(ws: Path) -> None:
    output = await call(tools_for(ws, max_search_files=2)["search_files"], query="zzz")
    assert output.data["files_searched"] == 2 and "examined 2 files (the limit)" in output.text


async def test_search_files_refusals(ws: Path) -> None:
    search = tools_for(ws)["search_files"]
    bad = await call(search, query="(", regex=True)
    assert bad.is_error and "is not a valid regular expression" in bad.text
    escape = await call(search, query="password", path="../outside")
    assert escape.is_error and "leads outside the workspace" in escape.text
    link = await call(search, query="password", path="leakdir")
    assert link.is_error and "symbolic link" in link.text
    with pytest.raises(ToolArgumentsError, match="search_files needs a non-empty query"):
        search.validate({"query": " "})


async def test_search_files_skips_large_files(ws: Path) -> None:
    (ws / "huge.txt").write_text("needle\n" + "x" * 3_000)
    output = await call(tools_for(ws, max_search_file_bytes=2_048)["search_files"], query="needle")
    assert output.data["matches"] == []


# --- search_files: patterns that backtrack catastrophically are bounded ------------------------------------------

HANG_GUARD_S = 30  # the re engine ran for minutes on these patterns
CHILD_SEARCH = """
import asyncio, json, sys
from pathlib import Path
from orchestration.tool_api import ToolContext
from tools.files import WorkspaceSettings, workspace_tools
[search] = [t for t in workspace_tools(WorkspaceSettings(folders=[Path(sys.argv[1])])) if t.name == "search_files"]
output = asyncio.run(search.invoke(search.validate(json.loads(sys.argv[2])), ToolContext(run_id="r", call_id="c")))
print(json.dumps({"text": output.text, "is_error": output.is_error}))
"""


def search_in_child(folder: Path, **arguments: Any) -> dict[str, Any]:
    """search_files run in a child process that is killed after HANG_GUARD_S: a pattern matched by an engine
    that holds the GIL cannot be stopped in-process, not even by pytest-timeout's thread."""
    try:
        done = subprocess.run([sys.executable, "-c", CHILD_SEARCH, str(folder), json.dumps(arguments)],
                              capture_output=True, text=True, timeout=HANG_GUARD_S, cwd=REPO)
    except subprocess.TimeoutExpired:
        pytest.fail(f"search_files {arguments} was still running after {HANG_GUARD_S} s")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_search_files_issue_pattern_finishes(ws: Path) -> None:
    (ws / "aaa.txt").write_text("a" * 40 + "b\n")
    output = search_in_child(ws, query="(a+)+$", regex=True, path="aaa.txt")
    assert output == {"text": "No matches for '(a+)+$' in aaa.txt (1 files searched).", "is_error": False}


def test_search_files_refuses_a_pattern_too_slow_for_one_line(ws: Path) -> None:
    (ws / "aaa.txt").write_text("fine\n" + "a" * 60 + "b\n")
    output = search_in_child(ws, query="(a|a)+$", regex=True)
    assert output["is_error"] is True
    assert output["text"].startswith("The regular expression '(a|a)+$' took longer than 1 s to match one line "
                                     "(aaa.txt:2), so the search was stopped (limit: 1 s per line).")


@pytest.mark.timeout(HANG_GUARD_S)
async def test_search_files_whole_search_time_limit_keeps_what_was_found(ws: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search_files_module, "MAX_SEARCH_SECONDS", 0.3)
    (ws / "aaa.txt").write_text("aaaa\n" + ("a" * 60 + "b\n") * 3)
    output = await call(tools_for(ws)["search_files"], query="(a|a)+$", regex=True, path="aaa.txt")
    assert not output.is_error
    assert output.data["matches"] == [{"path": "aaa.txt", "line": 1, "text": "aaaa"}]
    assert output.text.endswith("[stopped early: the search took 0.3 s (the limit); narrow the search with path "
                                "or glob]")


@pytest.mark.timeout(HANG_GUARD_S)
async def test_search_files_work_stops_when_the_caller_gives_up(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A timed-out or cancelled call ends the worker thread too, instead of leaving it searching."""
    lines_read = 0
    real_decode = search_files_module.decode_line

    def slow_decode(raw: bytes) -> str:
        nonlocal lines_read
        lines_read += 1
        time.sleep(0.005)
        return real_decode(raw)

    monkeypatch.setattr(search_files_module, "decode_line", slow_decode)
    (ws / "long.txt").write_text("nothing here\n" * 100_000)
    search = tools_for(ws)["search_files"]
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(call(search, query="needle", path="long.txt"), 0.3)
    await asyncio.sleep(0.3)
    after_stop = lines_read
    await asyncio.sleep(0.5)
    assert 0 < lines_read == after_stop
