"""write_file and edit_file on a real temporary folder: what they write, what they refuse (hostile paths, links
out of the folder, devices, FIFOs, read-only folders, size limits), atomic replacement and the approval preview."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from orchestration.tool_api import ToolContext, ToolOutput
from tools.files import WorkspaceSettings, confined_io, workspace_tools
from tools.registry import Tool


@pytest.fixture
def dirs(tmp_path: Path) -> dict[str, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("outside content\n")
    rw = tmp_path / "rw"
    (rw / "src").mkdir(parents=True)
    (rw / "src" / "app.py").write_text("def main():\n    print('hello')\n\nmain()\n")
    (rw / "escape").symlink_to(outside)
    (rw / "escape.txt").symlink_to(outside / "victim.txt")
    (rw / "inner.txt").symlink_to(rw / "src" / "app.py")
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "keep.txt").write_text("read only\n")
    return {"rw": rw, "ro": ro, "outside": outside}


def tools(dirs: dict[str, Path], **settings: Any) -> dict[str, Tool]:
    configured = WorkspaceSettings(folders=[dirs["rw"], dirs["ro"]], writable=[dirs["rw"]], **settings)
    return {t.name: t for t in workspace_tools(configured)}


def call(tool: Tool, **arguments: Any) -> ToolOutput:
    output = asyncio.run(tool.invoke(tool.validate(arguments), ToolContext(run_id="r", call_id="c")))
    assert isinstance(output, ToolOutput)
    return output


def preview(tool: Tool, **arguments: Any) -> str:
    text = asyncio.run(tool.approval_preview(tool.validate(arguments)))
    assert text is not None
    return text


def snapshot(root: Path) -> dict[str, bytes | str]:
    """Every entry under root: file bytes, or where a link points."""
    seen: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            seen[key] = f"-> {os.readlink(path)}"
        elif path.is_file():
            seen[key] = path.read_bytes()
        else:
            seen[key] = "dir"
    return seen


def test_write_tools_are_offered_only_with_a_read_write_folder(dirs):
    read_only = {t.name for t in workspace_tools(WorkspaceSettings(folders=[dirs["ro"]]))}
    assert read_only == {"list_directory", "read_file", "search_files"}
    offered = tools(dirs)
    assert {"write_file", "edit_file"} <= set(offered)
    for name in ("write_file", "edit_file"):
        assert offered[name].needs_approval and not offered[name].parallel_safe
        assert str(dirs["rw"]) in offered[name].description and str(dirs["ro"]) not in offered[name].description


def test_write_file_creates_a_file_and_folders_and_refuses_to_overwrite_unless_asked(dirs):
    write = tools(dirs)["write_file"]
    out = call(write, path="rw/notes/todo.md", content="- milk\n- eggs\n")
    assert not out.is_error, out.text
    assert (dirs["rw"] / "notes" / "todo.md").read_text() == "- milk\n- eggs\n"
    assert out.data == {"kind": "file_write", "path": "rw/notes/todo.md", "bytes": 14, "created": True}

    again = call(write, path="rw/notes/todo.md", content="gone")
    assert again.is_error and "already exists" in again.text and "overwrite=true" in again.text
    assert (dirs["rw"] / "notes" / "todo.md").read_text() == "- milk\n- eggs\n"

    os.chmod(dirs["rw"] / "notes" / "todo.md", 0o640)
    replaced = call(write, path="rw/notes/todo.md", content="- bread\n", overwrite=True)
    assert not replaced.is_error and replaced.text.startswith("Replaced rw/notes/todo.md")
    assert (dirs["rw"] / "notes" / "todo.md").read_text() == "- bread\n"
    assert stat.S_IMODE((dirs["rw"] / "notes" / "todo.md").stat().st_mode) == 0o640  # permissions kept
    assert not [p for p in (dirs["rw"] / "notes").iterdir() if p.name.startswith(".parley-")]  # no temp left


@pytest.mark.parametrize("path, says", [
    ("rw/../outside/new.txt", "outside the workspace"),
    ("rw/../../etc/passwd", "outside the workspace"),
    ("/etc/cron.d/evil", "outside the workspace"),
    ("~/.bashrc", "'~' is not expanded"),
    ("rw/escape/new.txt", "symbolic link"),
    ("rw/escape.txt", "symbolic link"),
    ("rw", "workspace folder itself"),
    ("ro/keep.txt", "read-only"),
    ("ro/new.txt", "read-only"),
    ("rw/src/app.py/child.txt", "not a folder"),
    ("rw/a\x00b", "NUL"),
])
def test_hostile_paths_are_refused_and_nothing_changes(dirs, path, says):
    before = {name: snapshot(folder) for name, folder in dirs.items()}
    write = tools(dirs)["write_file"]
    out = call(write, path=path, content="pwned\n", overwrite=True)
    assert out.is_error and says in out.text, out.text
    assert preview(write, path=path, content="pwned\n", overwrite=True).startswith("This call will fail:")
    edit = call(tools(dirs)["edit_file"], path=path, old_text="o", new_text="X")
    assert edit.is_error
    assert {name: snapshot(folder) for name, folder in dirs.items()} == before


def test_an_absolute_path_inside_the_read_write_folder_is_allowed(dirs):
    out = call(tools(dirs)["write_file"], path=str(dirs["rw"] / "abs.txt"), content="ok\n")
    assert not out.is_error and (dirs["rw"] / "abs.txt").read_text() == "ok\n"


def test_a_link_that_stays_inside_is_written_through_and_stays_a_link(dirs):
    out = call(tools(dirs)["edit_file"], path="rw/inner.txt", old_text="hello", new_text="bye")
    assert not out.is_error, out.text
    assert (dirs["rw"] / "inner.txt").is_symlink()
    assert "print('bye')" in (dirs["rw"] / "src" / "app.py").read_text()


def test_devices_fifos_sockets_and_folders_are_refused(dirs):
    os.mkfifo(dirs["rw"] / "pipe")
    (dirs["rw"] / "dev").symlink_to("/dev/null")  # a link out of the folder to a device
    write, edit = tools(dirs)["write_file"], tools(dirs)["edit_file"]
    fifo = call(edit, path="rw/pipe", old_text="a", new_text="b")  # must not hang on the FIFO
    assert fifo.is_error and "FIFO" in fifo.text
    assert "FIFO" in call(write, path="rw/pipe", content="x", overwrite=True).text
    assert stat.S_ISFIFO((dirs["rw"] / "pipe").lstat().st_mode)
    assert "symbolic link" in call(write, path="rw/dev", content="x", overwrite=True).text
    assert "a folder" in call(write, path="rw/src", content="x", overwrite=True).text
    assert (dirs["rw"] / "src").is_dir()


def test_a_folder_swapped_for_a_link_after_the_check_is_not_followed(dirs, monkeypatch):
    """The race the name check cannot see: the descriptor walk refuses the link and nothing leaves the folder."""
    from tools.files import change

    real_target = change.FileChanges.target

    def swap_then_target(self, path):  # the check passes, then the folder becomes a link out
        resolved = real_target(self, path)
        (dirs["rw"] / "sub").rmdir()
        (dirs["rw"] / "sub").symlink_to(dirs["outside"])
        return resolved

    (dirs["rw"] / "sub").mkdir()
    monkeypatch.setattr(change.FileChanges, "target", swap_then_target)
    out = call(tools(dirs)["write_file"], path="rw/sub/victim.txt", content="pwned\n", overwrite=True)
    assert out.is_error and "symbolic link" in out.text, out.text
    assert (dirs["outside"] / "victim.txt").read_text() == "outside content\n"


def test_a_hard_link_from_outside_keeps_its_content(dirs):
    os.link(dirs["outside"] / "victim.txt", dirs["rw"] / "hard.txt")
    out = call(tools(dirs)["write_file"], path="rw/hard.txt", content="new\n", overwrite=True)
    assert not out.is_error
    assert (dirs["rw"] / "hard.txt").read_text() == "new\n"
    assert (dirs["outside"] / "victim.txt").read_text() == "outside content\n"


def test_edit_file_replaces_one_exact_unique_snippet(dirs):
    edit = tools(dirs)["edit_file"]
    app = dirs["rw"] / "src" / "app.py"
    out = call(edit, path="rw/src/app.py", old_text="print('hello')", new_text="print('hello, world')")
    assert not out.is_error and out.data["kind"] == "file_edit", out.text
    assert app.read_text() == "def main():\n    print('hello, world')\n\nmain()\n"
    missing = call(edit, path="rw/src/app.py", old_text="print('absent')", new_text="x")
    assert missing.is_error and "not found" in missing.text
    twice = call(edit, path="rw/src/app.py", old_text="main", new_text="run")
    assert twice.is_error and "occurs 2 times" in twice.text
    nofile = call(edit, path="rw/src/none.py", old_text="a", new_text="b")
    assert nofile.is_error and "does not exist" in nofile.text and "write_file" in nofile.text
    assert app.read_text() == "def main():\n    print('hello, world')\n\nmain()\n"


def test_edit_file_refuses_binary_and_non_utf8_files(dirs):
    (dirs["rw"] / "blob.bin").write_bytes(b"ab\x00cd")
    (dirs["rw"] / "latin.txt").write_bytes("café\n".encode("latin-1"))
    edit = tools(dirs)["edit_file"]
    assert "binary" in call(edit, path="rw/blob.bin", old_text="ab", new_text="x").text
    assert "not valid UTF-8" in call(edit, path="rw/latin.txt", old_text="caf", new_text="x").text
    assert (dirs["rw"] / "latin.txt").read_bytes() == "café\n".encode("latin-1")


def test_size_limits_are_named_and_nothing_is_written(dirs):
    small = tools(dirs, max_write_bytes=1024, max_edit_file_bytes=2048)
    big = call(small["write_file"], path="rw/big.txt", content="x" * 1025)
    assert big.is_error and "max_write_bytes" in big.text and "1.0 KiB" in big.text
    assert not (dirs["rw"] / "big.txt").exists()
    (dirs["rw"] / "huge.txt").write_text("y" * 3000)
    huge = call(small["edit_file"], path="rw/huge.txt", old_text="y", new_text="z")
    assert huge.is_error and "max_edit_file_bytes" in huge.text
    (dirs["rw"] / "grow.txt").write_text("seed\n")
    grown = call(small["edit_file"], path="rw/grow.txt", old_text="seed", new_text="z" * 2000)
    assert grown.is_error and "max_write_bytes" in grown.text
    assert (dirs["rw"] / "grow.txt").read_text() == "seed\n"


def test_a_failed_write_leaves_the_old_file_and_no_temporary(dirs, monkeypatch):
    target = dirs["rw"] / "src" / "app.py"
    original = target.read_bytes()

    def failing_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(confined_io.os, "fsync", failing_fsync)
    out = call(tools(dirs)["write_file"], path="rw/src/app.py", content="new\n", overwrite=True)
    assert out.is_error
    assert out.text == "Could not write rw/src/app.py: No space left on device. The file was left as it was."
    assert target.read_bytes() == original
    assert sorted(p.name for p in target.parent.iterdir()) == ["app.py"]


def test_the_preview_shows_path_sizes_and_a_diff(dirs):
    offered = tools(dirs)
    new = preview(offered["write_file"], path="rw/notes.md", content="one\ntwo\n")
    assert new.startswith("Write rw/notes.md: new file (8 B, 2 lines) in ")
    assert "+++ b/rw/notes.md" in new and "+one" in new and "+two" in new
    edit = preview(offered["edit_file"], path="rw/src/app.py", old_text="print('hello')", new_text="print('bye')")
    assert edit.startswith("Edit rw/src/app.py: 39 B becomes 37 B (4 lines) in ")
    assert "-    print('hello')" in edit and "+    print('bye')" in edit and "--- a/rw/src/app.py" in edit
    assert not (dirs["rw"] / "notes.md").exists()  # a preview writes nothing
    assert "print('hello')" in (dirs["rw"] / "src" / "app.py").read_text()


def test_a_long_preview_is_cut_at_its_named_limit(dirs):
    write = tools(dirs, max_preview_lines=10)["write_file"]
    text = preview(write, path="rw/long.txt", content="".join(f"line {n}\n" for n in range(100)))
    assert "[preview cut: " in text and "max_preview_lines" in text
    assert text.count("\n+line") == 10 - 3  # headers (---, +++, @@) count as diff lines
