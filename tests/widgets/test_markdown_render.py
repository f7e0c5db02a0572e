"""The incremental markdown render must end identical to a full render of the same text."""

from __future__ import annotations

import difflib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtGui import QTextDocument

from widgets.markdown_blocks import BlockSplitter
from widgets.markdown_render import StreamingMarkdown, append_markdown, render_markdown

BLOCKS = [
    "# Title", "## Second *level*", "### h3 with `code`", "Some *para* text\nsecond line",
    "A paragraph with **bold**, _italic_, `code` and a [link](https://example.org).",
    "- a\n- b", "* star\n  * nested\n  * nested two", "1. one\n2. two", "10. ten", "- [ ] task\n- [x] done",
    "```python\nx = 1\n\ny = 2\n```", "```\nraw\n```", "~~~\ntilde fence\n~~~", "    indented code\n    more",
    "> quote\n> more", "> quote with\n\n> two paragraphs", "| a | b |\n|---|---|\n| 1 | 2 |", "---", "plain",
    "Setext heading\n===", "Line with trailing spaces  \nhard break", "- item\n\n  continued paragraph",
    "1. first\n\n   indented para\n2. second", "Ünïcödé and emoji 😀 text", "<br/>", "[ref]: https://x.y",
    "1. one\n1. again\n1. third", "- a\n* b\n* c", "3) x\n4) y\n\n5) z", "- a\n  ```\n- not an item\n  ```\n- b",
    "7. a\n   - nested\n8. b\n- c", "- a\nlazy\n- b\n- - -\n- c", "| h | i |\n|---|:-:|\n| 1 | **2** |",
    "Math $x^2$ and $$\\frac{1}{2}$$", "![img](https://example.org/a.png) <b>raw</b>",
]


def html_diff(expected: QTextDocument, actual: QTextDocument) -> str:
    return "\n".join(difflib.unified_diff(expected.toHtml().splitlines(), actual.toHtml().splitlines(),
                                         lineterm="", n=1))


def stream(text: str, cuts: list[int], document: QTextDocument | None = None) -> QTextDocument:
    document = document or QTextDocument()
    region = StreamingMarkdown(document)
    previous = 0
    for cut in sorted(set(cuts)):
        region.push(text[previous:cut])
        region.flush()
        previous = cut
    region.push(text[previous:])
    region.finish()
    return document


# Blocks joined by blank lines, and sometimes by a single line break (a list right after a heading, a fence
# right after a list item ...), where the splitter must not cut.
markdown_texts = st.lists(st.tuples(st.sampled_from(BLOCKS), st.sampled_from(["\n\n", "\n\n", "\n"])),
                          min_size=1, max_size=7).map(lambda parts: "".join(b + s for b, s in parts))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdown_texts, data=st.data())
def test_streamed_render_equals_full_render(qapp, text, data):
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=25))
    expected = render_markdown(text)
    actual = stream(text, cuts)
    assert expected.toHtml() == actual.toHtml(), html_diff(expected, actual)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdown_texts, data=st.data())
def test_streamed_render_after_existing_content_equals_one_append(qapp, text, data):
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=10))
    expected = render_markdown("**You**")
    append_markdown(expected, text)
    actual = stream(text, cuts, render_markdown("**You**"))
    assert expected.toHtml() == actual.toHtml(), html_diff(expected, actual)


@pytest.mark.parametrize("text", ["\n\n".join(BLOCKS) + "\n", "token " * 3000])
def test_character_by_character(qapp, text):
    expected = render_markdown(text)
    actual = stream(text, list(range(0, len(text), 7)))
    assert expected.toHtml() == actual.toHtml(), html_diff(expected, actual)


def test_append_markdown_block_by_block_equals_full_render(qapp):
    # A paragraph between blocks keeps lists apart; blocks whose render depends on distant context are left out.
    parts = []
    for block in BLOCKS:
        if not block.startswith(("<", "[")):
            parts += ["Between.", block]
    document = QTextDocument()
    for part in parts:
        append_markdown(document, part)
    expected = render_markdown("\n\n".join(parts))
    assert expected.toHtml() == document.toHtml(), html_diff(expected, document)


def test_splitter_keeps_lists_and_fences_together():
    splitter = BlockSplitter()
    finished = splitter.feed("- a\n\n- b\n\nPara\n\n```\ncode\n\nmore\n```\n\nend")
    assert finished == ["- a\n\n", "- b\n\n", "Para\n\n"]  # a list is cut between its top-level items
    assert splitter.tail == "```\ncode\n\nmore\n```\n\nend"
    assert not splitter.needs_full_render


def test_splitter_cuts_long_lists_at_items_and_carries_the_numbering_on():
    splitter = BlockSplitter()
    finished = splitter.feed("1. a\n1. b\n   - nested\n1. c\n2) other list\n")
    assert finished == ["1. a\n", "2. b\n   - nested\n"]
    assert splitter.tail == "3. c\n2) other list\n"  # a different delimiter is another list: not a cut


def test_splitter_flags_context_dependent_constructs():
    for text in ["```\nx\n```\n\n| a |\n|---|\n| 1 |\n", "[r]: https://x\n", "<div>x</div>\n"]:
        splitter = BlockSplitter()
        splitter.feed(text)
        assert splitter.needs_full_render, text


def test_a_huge_unfinished_block_streams_as_plain_lines_and_ends_rendered(qapp):
    from widgets.markdown_render import RAW_TAIL_CHARS

    text = "".join(">" * (i % 9 + 1) + f" line *{i}*\n" for i in range(RAW_TAIL_CHARS // 8)) + "\nafter\n"
    document = QTextDocument()
    region = StreamingMarkdown(document)
    middle = len(text) - 400
    region.push(text[:middle])
    region.flush()
    assert "> line *" in document.toPlainText()  # shown raw while the block is unfinished
    for start in range(middle, len(text), 50):
        region.push(text[start:start + 50])
        region.flush()
    region.finish()
    expected = render_markdown(text)
    assert expected.toHtml() == document.toHtml(), html_diff(expected, document)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(text=markdown_texts, data=st.data())
def test_streaming_with_plain_line_tails_still_ends_equal_to_a_full_render(qapp, monkeypatch, text, data):
    import widgets.markdown_render

    monkeypatch.setattr(widgets.markdown_render, "RAW_TAIL_CHARS", 12)  # most tails go through the plain path
    cuts = data.draw(st.lists(st.integers(min_value=0, max_value=len(text)), max_size=20))
    expected = render_markdown(text)
    actual = stream(text, cuts, render_markdown("**You**") if data.draw(st.booleans()) else None)
    if actual.toPlainText().startswith("You"):
        expected = render_markdown("**You**")
        append_markdown(expected, text)
    assert expected.toHtml() == actual.toHtml(), html_diff(expected, actual)
