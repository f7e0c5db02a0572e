"""The settings file: round trip, atomic writes, and a bad file reported by name and field, moved aside."""

from __future__ import annotations

import json
import os

import pytest

from app.settings import ProviderSettings, Settings, SettingsError, load_settings, save_settings


def test_missing_file_gives_defaults_without_creating_it(tmp_path):
    path = tmp_path / "config" / "settings.json"
    loaded = load_settings(path)
    assert loaded.settings == Settings() and loaded.problem is None
    assert not path.exists()


def test_round_trip_is_human_readable(tmp_path):
    path = tmp_path / "config" / "settings.json"
    settings = Settings(providers=[ProviderSettings(id="local", base_url="http://127.0.0.1:8080/v1",
                                                    default_model="m")], default_provider="local")
    save_settings(settings, path)
    text = path.read_text()
    assert text.startswith("{\n  ") and '"default_provider": "local"' in text
    assert load_settings(path).settings == settings
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temporary file left


def test_invalid_field_is_named_the_file_moved_aside_and_defaults_used(tmp_path):
    path = tmp_path / "settings.json"
    original = json.dumps({"providers": [{"id": "p", "base_url": "ftp://nope"}], "ui": {"font_size": 1000}})
    path.write_text(original)
    loaded = load_settings(path)
    assert loaded.settings == Settings()
    assert str(path) in loaded.problem
    assert "providers[0].base_url" in loaded.problem and "ui.font_size" in loaded.problem
    assert loaded.backup is not None and loaded.backup.name.startswith("settings.json.bad-")
    assert loaded.backup.read_text() == original
    assert not path.exists()
    save_settings(Settings(), path)  # the next save cannot touch the backup
    assert loaded.backup.read_text() == original


def test_not_json_is_reported(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{ this is not json")
    loaded = load_settings(path)
    assert "is not valid JSON" in loaded.problem and str(path) in loaded.problem
    assert loaded.backup is not None and loaded.backup.read_text() == "{ this is not json"


def test_second_bad_file_in_the_same_second_gets_its_own_backup(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("[1]")
    first = load_settings(path).backup
    path.write_text("[2]")
    second = load_settings(path).backup
    assert first != second and first.read_text() == "[1]" and second.read_text() == "[2]"


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read files without permission")
def test_unreadable_file_is_reported_and_left_alone(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{}")
    path.chmod(0)
    loaded = load_settings(path)
    assert "could not read" in loaded.problem and str(path) in loaded.problem
    assert path.exists()


def test_failed_save_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "settings.json"
    save_settings(Settings(default_provider=None), path)
    before = path.read_text()

    def disk_full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(SettingsError, match="the disk is full") as caught:
        save_settings(Settings(ui={"theme": "dark"}), path)
    assert str(path) in str(caught.value)
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]


@pytest.mark.parametrize(("content", "reason"), [
    ("[" * 1_100 + "]" * 1_100, "nested more than 100 levels deep, over the limit of 100"),
    ('{"providers": ' + "[" * 1_100 + "]" * 1_100 + "}", "nested more than 100 levels deep"),
    ('{"x": "' + "a" * (1024 * 1024) + '"}', "more than 1 MiB, over the limit of 1 MiB for a settings file"),
])
def test_too_deep_or_too_large_is_moved_aside_with_the_reason(tmp_path, content, reason):
    path = tmp_path / "settings.json"
    path.write_text(content)
    loaded = load_settings(path)
    assert loaded.settings == Settings()
    assert reason in loaded.problem and str(path) in loaded.problem and "moved to" in loaded.problem
    assert loaded.backup is not None and loaded.backup.read_text() == content
    assert not path.exists()
