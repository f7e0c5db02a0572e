"""Atomic whole-file writes with more than one writer: each call has its own temporary file, so two threads of
one process (two exports from the window, the key index noted from two threads) never write into the same
temporary file, and the result is always one writer's whole text."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from app.errors import EnvironmentProblem
from app.file_write import replace_text, write_file_atomically

ROUNDS = 200


def test_two_threads_writing_one_file_never_fail_or_mix(tmp_path: Path) -> None:
    target = tmp_path / "usage.csv"
    texts = {"a": "a" * 200_000, "b": "b" * 200_000}  # large enough that writes overlap
    start = threading.Barrier(2)
    failures: list[BaseException] = []

    def writer(text: str) -> None:
        start.wait()
        try:
            for _ in range(ROUNDS):
                write_file_atomically(target, text)
                assert target.read_text(encoding="utf-8") in texts.values()
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=writer, args=(text,)) for text in texts.values()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert target.read_text(encoding="utf-8") in texts.values()
    assert [p.name for p in tmp_path.iterdir()] == ["usage.csv"]


def test_a_failed_write_names_the_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()  # a folder has the name: the rename fails
    with pytest.raises(EnvironmentProblem, match=r"could not write .*taken"):
        write_file_atomically(target, "text")
    with pytest.raises(OSError):
        replace_text(target, "text")
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]


def test_a_written_file_has_the_usual_permissions(tmp_path: Path) -> None:
    """An export is readable as any file the user saves (the umask's permissions), not private to them."""
    previous = os.umask(0o022)
    try:
        write_file_atomically(tmp_path / "export.md", "text")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "export.md").stat().st_mode) == 0o644
