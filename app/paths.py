"""Where Parley keeps its files: the data directory (history database) and the config directory (settings).

By default these are the platform's directories (platformdirs). ``PARLEY_HOME`` or the global ``--data-dir``
option move both under one folder (``<home>/data`` and ``<home>/config``), for portable installs and tests;
``--data-dir`` wins over ``PARLEY_HOME``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

APP_NAME = "parley"
HOME_ENV = "PARLEY_HOME"
DATABASE_NAME = "history.db"
SETTINGS_NAME = "settings.json"


class AppPaths(NamedTuple):
    # A NamedTuple, not a dataclass: dataclasses imports inspect (about 10 ms), which `parley tools list` and
    # the other commands that only resolve these paths do not otherwise need (issue 17).

    data_dir: Path
    config_dir: Path

    @property
    def database(self) -> Path:
        return self.data_dir / DATABASE_NAME

    @property
    def settings(self) -> Path:
        return self.config_dir / SETTINGS_NAME


def resolve_paths(data_dir: str | os.PathLike[str] | None = None) -> AppPaths:
    """The directories to use: ``data_dir`` (from ``--data-dir``), else ``$PARLEY_HOME``, else platformdirs.

    Nothing is created here; the storage and settings modules create what they write to.
    """
    base = home_override(data_dir)
    if base is not None:
        return AppPaths(data_dir=base / "data", config_dir=base / "config")
    import platformdirs  # only here: the window reads its layout before the first paint without it

    return AppPaths(data_dir=Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
                    config_dir=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)))


def home_override(data_dir: str | os.PathLike[str] | None = None) -> Path | None:
    """The folder ``--data-dir`` or ``$PARLEY_HOME`` names (``--data-dir`` first), else None."""
    home = data_dir or os.environ.get(HOME_ENV) or None
    return Path(home).expanduser().resolve() if home else None
