"""Search snippets become plain text with the matched words marked: markdown stripped, HTML kept literal."""

from __future__ import annotations

import pytest

from widgets.search_snippet import MARK_END, MARK_START, Piece, plain_text, snippet_pieces, unmarked


def m(word: str) -> str:
    return f"{MARK_START}{word}{MARK_END}"


@pytest.mark.parametrize(("snippet", "shown"), [
    ("## Sea otters and tools", "Sea otters and tools"),
    ("they **use tools** and *stones*", "they use tools and stones"),
    ("call `crack(shell)` now", "call crack(shell) now"),
    ("see [the article](https://en.wikipedia.org/wiki/Sea_otter) here", "see the article here"),
    ("![an otter](/dev/zero) floats", "an otter floats"),
    ("- first\n- second\n1. third", "first second third"),
    ("> quoted\n> > deeper", "quoted deeper"),
    ("```python\ndef crack():\n```", "def crack():"),
    ("| a | b |\n|---|---|\n| 1 | 2 |", "a · b 1 · 2"),
    ("snake_case_name and 2*3*4", "snake_case_name and 2*3*4"),
    ("~~old~~ new", "old new"),
    ("line<br/>break and <details>x</details>", "line break and x"),
    ("x<2 and y>3", "x<2 and y>3"),
    ("Tom &amp; Jerry", "Tom & Jerry"),
    ("…and the answer](https://example.com) follows", "…and the answer follows"),
])
def test_markdown_is_stripped(snippet, shown):
    assert plain_text(snippet) == shown


def test_matched_words_are_marked_inside_markdown():
    pieces = snippet_pieces(f"## Sea {m('otters')} use **{m('tools')}** often")
    assert pieces == [Piece("Sea ", False), Piece("otters", True), Piece(" use ", False), Piece("tools", True),
                      Piece(" often", False)]


def test_html_in_a_snippet_is_text_not_markup():
    pieces = snippet_pieces(f"<img src=x> {m('<b>')} not bold & {m('otter')}")
    assert unmarked(pieces) == "not bold & otter"  # a tag is stripped as markdown would hide it
    pieces = snippet_pieces(f"x {m('a<b')} c")
    assert [p.text for p in pieces if p.marked] == ["a<b"]


def test_no_marks_gives_one_plain_piece_and_empty_gives_none():
    assert snippet_pieces("just *text*") == [Piece("just text", False)]
    assert snippet_pieces("") == []
