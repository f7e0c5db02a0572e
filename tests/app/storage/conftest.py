"""A fresh history database in a temporary folder for each storage test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.storage import History


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "history.db"


@pytest.fixture
def history(db_path: Path) -> Iterator[History]:
    with History.open(db_path) as opened:
        yield opened
