"""Two writers of one settings file (the window and a ``parley`` command) keep each other's changes: a save puts
only what that writer changed onto what the file holds now, a reload puts the file's changes onto the writer's
settings and says "nothing new" for its own save, a writer holding the lock makes another wait and then fail
with a clear message, and a merge that does not validate falls back to the newer writer's settings."""

from __future__ import annotations

import fcntl
import json
import os
from pathlib import Path

import pytest

from app.settings import Settings, SettingsError, save_settings, shared_file
from app.settings.merge import merge_json, merge_settings
from app.settings.shared_file import SettingsFile, read_settings


def test_merge_takes_each_sides_changes_and_ours_on_a_conflict() -> None:
    base = {"a": 1, "b": {"x": 1, "y": 2}, "c": [1], "gone": 1}
    ours = {"a": 2, "b": {"x": 1, "y": 3, "new": 1}, "c": [1], "gone": 1}
    theirs = {"a": 1, "b": {"x": 5, "y": 2}, "c": [1, 2]}
    assert merge_json(base, ours, theirs) == {"a": 2, "b": {"x": 5, "y": 3, "new": 1}, "c": [1, 2]}
    assert merge_json({"a": 1}, {"a": 2}, {"a": 3}) == {"a": 2}  # both changed it: ours, the newer writer
    assert merge_json({"a": 1, "k": 1}, {"a": 1}, {"a": 1, "k": 1}) == {"a": 1}  # ours removed a key


def test_a_merge_that_does_not_validate_is_the_newer_writers_settings(tmp_path: Path) -> None:
    from app.engine.settings import LocalModel

    one, two = LocalModel(name="m", path=str(tmp_path / "one.gguf")), LocalModel(name="m", path=str(tmp_path / "b"))
    base = Settings()
    ours = Settings.model_validate({"engine": {"models": [one.model_dump()]}})
    theirs = Settings.model_validate({"engine": {"models": [two.model_dump()]}})
    assert merge_settings(base, ours, theirs) == ours  # one list, changed by both: ours whole


def test_a_save_keeps_what_another_writer_saved_since(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    save_settings(Settings(), path)
    window = SettingsFile(path, read_settings(path))
    command = SettingsFile(path, read_settings(path))  # e.g. `parley local download`, minutes long

    mine = read_settings(path)
    mine.ui.theme = "dark"
    window.save(mine)
    theirs = command.known.model_copy(deep=True)
    theirs.engine.context_size = 2048
    written = command.save(theirs)
    on_disk = json.loads(path.read_text())
    assert on_disk["ui"]["theme"] == "dark" and on_disk["engine"]["context_size"] == 2048
    assert written == read_settings(path)

    assert window.reload(mine) is not None  # the command's change is new to the window
    assert window.reload(window.known) is None  # and read once only
    again = window.known.model_copy(deep=True)
    again.ui.font_size = 14
    window.save(again)
    assert window.reload(again) is None  # its own save, seen by its watcher: nothing to adopt


def test_reload_puts_the_files_change_onto_the_writers_own_unsaved_ones(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    window = SettingsFile(path, Settings())
    mine = Settings()
    mine.ui.theme = "dark"  # kept for this session only (its save failed)
    mine.engine.context_size = 8192
    other = Settings()
    other.engine.context_size = 1024
    save_settings(other, path)
    adopted = window.reload(mine)
    assert adopted is not None and adopted.ui.theme == "dark" and adopted.engine.context_size == 1024


def test_a_held_lock_makes_a_save_fail_clearly_and_change_nothing(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "settings.json"
    save_settings(Settings(), path)
    before = path.read_text()
    monkeypatch.setattr(shared_file, "LOCK_WAIT_S", 0.2)
    holder = os.open(path.with_name("settings.json.lock"), os.O_RDWR | os.O_CREAT)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        changed = Settings()
        changed.ui.theme = "dark"
        with pytest.raises(SettingsError, match="another Parley process has been writing the settings file"):
            SettingsFile(path, Settings()).save(changed)
        assert path.read_text() == before
    finally:
        os.close(holder)
    SettingsFile(path, Settings()).save(changed)  # released: it saves
    assert json.loads(path.read_text())["ui"]["theme"] == "dark"


def test_reading_never_moves_an_invalid_file_aside(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text("{not json")
    with pytest.raises(SettingsError, match="is invalid: it is not valid JSON"):
        read_settings(path)
    assert path.read_text() == "{not json" and sorted(p.name for p in tmp_path.iterdir()) == ["settings.json"]
