"""Path confinement: every path resolves inside a workspace folder or is refused with the reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools.files.workspace import PathRefused, Workspace


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/ws (the workspace) with files, a link inside, links leading out; tmp/outside with a secret."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("print('hi')\n")
    (ws / "notes.md").write_text("notes\n")
    (ws / "link_inside").symlink_to(ws / "src" / "app.py")
    (ws / "link_out_file").symlink_to(outside / "secret.txt")
    (ws / "link_out_dir").symlink_to(outside)
    (ws / "src" / "up").symlink_to("..")  # relative link back to the workspace root: inside
    return tmp_path


def test_relative_paths_resolve_inside(tree: Path) -> None:
    ws = Workspace([tree / "ws"])
    resolved = ws.resolve("src/app.py")
    assert resolved.real == (tree / "ws" / "src" / "app.py").resolve()
    assert resolved.shown == "src/app.py"
    assert ws.resolve(".").shown == "."
    assert ws.resolve("").real == (tree / "ws").resolve()
    assert ws.resolve("src/../notes.md").shown == "notes.md"  # '..' that stays inside is fine


def test_absolute_path_inside_is_allowed(tree: Path) -> None:
    ws = Workspace([tree / "ws"])
    assert ws.resolve(str(tree / "ws" / "notes.md")).shown == "notes.md"


@pytest.mark.parametrize("path", ["..", "../outside/secret.txt", "src/../../outside/secret.txt", "src/../.."])
def test_dot_dot_escapes_are_refused(tree: Path, path: str) -> None:
    with pytest.raises(PathRefused, match="leads outside the workspace"):
        Workspace([tree / "ws"]).resolve(path)


@pytest.mark.parametrize("path", ["/etc/passwd", "/", "OUTSIDE"])
def test_absolute_paths_outside_are_refused(tree: Path, path: str) -> None:
    target = str(tree / "outside" / "secret.txt") if path == "OUTSIDE" else path
    with pytest.raises(PathRefused, match="is outside the workspace; the file tools read only inside"):
        Workspace([tree / "ws"]).resolve(target)


@pytest.mark.parametrize("path", ["link_out_file", "link_out_dir", "link_out_dir/secret.txt"])
def test_symlinks_leaving_the_workspace_are_refused(tree: Path, path: str) -> None:
    with pytest.raises(PathRefused) as caught:
        Workspace([tree / "ws"]).resolve(path)
    message = str(caught.value)
    assert "symbolic link" in message and str((tree / "outside").resolve()) in message


def test_symlinks_staying_inside_are_followed(tree: Path) -> None:
    ws = Workspace([tree / "ws"])
    assert ws.resolve("link_inside").shown == "src/app.py"
    assert ws.resolve("src/up/notes.md").shown == "notes.md"


def test_absolute_path_through_an_outside_link_is_refused(tree: Path) -> None:
    with pytest.raises(PathRefused, match="symbolic link"):
        Workspace([tree / "ws"]).resolve(str(tree / "ws" / "link_out_dir" / "secret.txt"))


def test_workspace_folder_that_is_itself_a_link(tree: Path) -> None:
    (tree / "alias").symlink_to(tree / "ws")
    ws = Workspace([tree / "alias"])
    assert ws.resolve("notes.md").real == (tree / "ws" / "notes.md").resolve()
    assert ws.resolve(str(tree / "ws" / "notes.md")).shown == "notes.md"  # the real path is inside too
    with pytest.raises(PathRefused):
        ws.resolve("link_out_file")


@pytest.mark.parametrize(("path", "phrase"), [("~/.ssh/id_rsa", "'~' is not expanded"),
                                              ("a\x00b", "NUL character")])
def test_odd_paths(tree: Path, path: str, phrase: str) -> None:
    with pytest.raises(PathRefused, match=phrase):
        Workspace([tree / "ws"]).resolve(path)


def test_several_folders_are_named_by_their_first_path_part(tree: Path) -> None:
    other = tree / "more" / "ws"
    other.mkdir(parents=True)
    (other / "todo.txt").write_text("x")
    ws = Workspace([tree / "ws", other, tree / "ws"])  # the repeated folder is kept once
    assert [f.name for f in ws.folders] == ["ws", "ws-2"]
    assert ws.resolve("ws-2/todo.txt").real == (other / "todo.txt").resolve()
    assert ws.resolve("ws/notes.md").shown == "ws/notes.md"
    assert ws.resolve(str(other / "todo.txt")).shown == "ws-2/todo.txt"
    assert ws.is_top(".") and ws.is_top("")
    with pytest.raises(PathRefused, match="relative paths start with the folder's name"):
        ws.resolve("notes.md")
    with pytest.raises(PathRefused, match="leads outside the workspace"):
        ws.resolve("ws-2/../../ws/notes.md")


def test_no_folder_chosen() -> None:
    with pytest.raises(PathRefused, match="No workspace folder is chosen"):
        Workspace([]).resolve("x")


def test_paths_are_resolved_before_use(tree: Path) -> None:
    """The resolved path is what the tools open: the real file, not the link text the model wrote."""
    resolved = Workspace([tree / "ws"]).resolve("link_inside")
    assert not os.path.islink(resolved.real)
