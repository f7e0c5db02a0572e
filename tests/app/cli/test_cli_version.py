"""``parley --version`` prints the installed version and exits 0 (app/cli/entry.py)."""

from __future__ import annotations

from importlib import metadata

import pytest

from app.cli import main


def test_version_prints_the_installed_version_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"parley {metadata.version('parley')}\n"


def test_help_still_offers_the_version_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "--version" in capsys.readouterr().out
