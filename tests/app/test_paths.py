"""Where files live: --data-dir over PARLEY_HOME over the platform's folders."""

from __future__ import annotations

from pathlib import Path

from app.paths import DATABASE_NAME, SETTINGS_NAME, resolve_paths


def test_parley_home_holds_data_and_config(tmp_path, monkeypatch):
    monkeypatch.setenv("PARLEY_HOME", str(tmp_path / "home"))
    paths = resolve_paths()
    assert paths.data_dir == tmp_path / "home" / "data"
    assert paths.config_dir == tmp_path / "home" / "config"
    assert paths.database == tmp_path / "home" / "data" / DATABASE_NAME
    assert paths.settings == tmp_path / "home" / "config" / SETTINGS_NAME


def test_data_dir_option_wins_over_parley_home(tmp_path, monkeypatch):
    monkeypatch.setenv("PARLEY_HOME", str(tmp_path / "home"))
    assert resolve_paths(tmp_path / "other").data_dir == tmp_path / "other" / "data"


def test_platform_directories_without_overrides(monkeypatch, tmp_path):
    monkeypatch.delenv("PARLEY_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    paths = resolve_paths()
    assert paths.data_dir == tmp_path / "xdg-data" / "parley"
    assert paths.config_dir == tmp_path / "xdg-config" / "parley"
    assert not Path(paths.data_dir).exists()  # resolving creates nothing
