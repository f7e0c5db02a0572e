"""An attachment name over the limit is cut to its start, an ellipsis and its extension; one that fits is kept."""

from __future__ import annotations

from app.attachments.names import CUT_MARK, MAX_KEPT_EXTENSION_CHARS, fit_name


def test_a_fitting_name_is_kept_whole():
    assert fit_name("notes.md", limit=8) == "notes.md"


def test_the_extension_is_kept_after_the_mark():
    assert fit_name("quarterly-report.pdf", limit=12) == "quarter" + CUT_MARK + ".pdf"


def test_an_extension_too_long_to_be_one_is_cut_like_the_rest():
    name = "a" * 20 + "." + "b" * MAX_KEPT_EXTENSION_CHARS
    assert fit_name(name, limit=10) == "a" * 9 + CUT_MARK


def test_a_name_without_an_extension_ends_in_the_mark():
    assert fit_name("x" * 50, limit=10) == "x" * 9 + CUT_MARK
