"""Running ``parley`` in-process for CLI tests: exit code, stdout and stderr."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pytest

from app.cli.entry import main


@dataclass
class Result:
    code: int
    out: str
    err: str


def run_cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *argv: str,
            stdin: str = "") -> Result:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(list(argv))
    captured = capsys.readouterr()
    return Result(code, captured.out, captured.err)
