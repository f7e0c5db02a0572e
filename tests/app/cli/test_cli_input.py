"""Command-line text that is not UTF-8 is refused as bad usage, naming where and which byte."""

from __future__ import annotations

import io

import pytest

from app.cli.cli_common import UsageError
from app.cli.cli_input import read_text, require_text


def test_text_passes_and_undecodable_bytes_are_named():
    assert require_text("café", "the prompt") == "café"
    assert require_text(None, "--model") is None
    with pytest.raises(UsageError, match=r"the prompt is not valid UTF-8 text \(the byte 0xe9 at character 4\)"):
        require_text(b"caf\xe9".decode("utf-8", "surrogateescape"), "the prompt")


@pytest.mark.parametrize("errors", ["strict", "surrogateescape"])
def test_standard_input_that_is_not_utf8_is_refused_either_way(errors):
    stream = io.TextIOWrapper(io.BytesIO(b"ok \xff then"), encoding="utf-8", errors=errors)
    with pytest.raises(UsageError, match=r"standard input is not valid UTF-8 text .*0xff"):
        read_text(stream, "standard input")
    assert read_text(io.TextIOWrapper(io.BytesIO("é".encode()), encoding="utf-8"), "stdin") == "é"
