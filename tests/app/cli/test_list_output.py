"""The listing contract every ``parley ... list`` shares: JSON on stdout, the empty hint on stderr only."""

import json
from dataclasses import asdict, dataclass

import pytest

from app.cli.list_output import printed_json_or_empty


@dataclass
class Row:
    id: int
    title: str


def test_json_prints_every_row_through_to_json_even_when_empty(capsys: pytest.CaptureFixture[str]) -> None:
    assert printed_json_or_empty([Row(1, "a"), Row(2, "b")], as_json=True, empty="none", to_json=asdict)
    assert json.loads(capsys.readouterr().out) == [{"id": 1, "title": "a"}, {"id": 2, "title": "b"}]
    assert printed_json_or_empty([], as_json=True, empty="none")
    out = capsys.readouterr()
    assert (out.out.strip(), out.err) == ("[]", "")


def test_no_rows_puts_the_hint_on_stderr_and_nothing_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert printed_json_or_empty([], as_json=False, empty="No providers yet.")
    out = capsys.readouterr()
    assert (out.out, out.err) == ("", "No providers yet.\n")


def test_rows_without_json_leave_the_table_to_the_caller(capsys: pytest.CaptureFixture[str]) -> None:
    assert not printed_json_or_empty([Row(1, "a")], as_json=False, empty="none")
    assert capsys.readouterr() == ("", "")
