"""What the subcommands share: the directories from ``--data-dir``, the settings (with a warning for a bad
file), the history database and the secret store."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.paths import AppPaths, resolve_paths
from app.settings import Settings, load_settings

if TYPE_CHECKING:  # the database layer and the keyring load when a command opens them
    from app.secrets import SecretLookup, SecretStore
    from app.storage import History


def paths_from_args(args: argparse.Namespace) -> AppPaths:
    return resolve_paths(getattr(args, "data_dir", None))


def warn(message: str) -> None:
    print(f"parley: warning: {message}", file=sys.stderr)


_read: dict[Path, Settings] = {}  # per settings file, what this command last read: the base of its changes


def settings_from_args(args: argparse.Namespace) -> Settings:
    """The validated settings; a bad file is reported on stderr (and moved aside) and defaults are used."""
    path = paths_from_args(args).settings
    loaded = load_settings(path)
    if loaded.problem:
        warn(loaded.problem)
    _read[path] = loaded.settings.model_copy(deep=True)
    return loaded.settings


def save_settings_from_args(args: argparse.Namespace, settings: Settings) -> None:
    """Save this command's changes to ``settings`` (since ``settings_from_args`` read the file) onto what the
    file holds now, under its lock (app/settings/shared_file.py): a window or another command that saved
    meanwhile keeps its changes. Raises SettingsError."""
    from app.settings.shared_file import SettingsFile

    path = paths_from_args(args).settings
    SettingsFile(path, _read.get(path, settings)).save(settings)
    _read[path] = settings.model_copy(deep=True)


def open_history(args: argparse.Namespace) -> History:
    """The history database; raises StorageError (naming the file) when it cannot be opened."""
    from app.storage import History

    return History.open(paths_from_args(args).database)


def secret_store(args: argparse.Namespace) -> SecretStore:
    """The keyring store, with the note of which entries hold a key (app/secrets/key_index.py) in the config
    directory ``--data-dir`` picks."""
    from app.secrets import SecretStore
    from app.secrets.key_index import KEY_INDEX_NAME, KeyIndex

    return SecretStore(index=KeyIndex(paths_from_args(args).config_dir / KEY_INDEX_NAME))


def key_lookup(args: argparse.Namespace) -> SecretLookup:
    """A ``secret_lookup`` that opens the keyring at its first call: a listing that builds the tools asks for no
    key unless a search backend or MCP server needs one, so the keyring is not loaded for nothing."""
    store: SecretStore | None = None

    def lookup(name: str) -> str | None:
        nonlocal store
        if store is None:
            store = secret_store(args)
        return store.lookup(name)

    return lookup
