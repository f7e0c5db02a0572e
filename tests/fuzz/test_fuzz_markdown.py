"""Fuzzing the markdown renderer with what a model may answer: any text renders without an exception, within the
time bound, and streaming it in arbitrary pieces ends identical to one full render.

Written against the public functions of widgets/markdown_render.py (``render_markdown`` and
``StreamingMarkdown``); if a replacement renderer drops them, the test skips saying so.
"""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from tests.fuzz.strategies import hostile_text
from tests.widgets.test_markdown_render import stream

markdown_render = pytest.importorskip("widgets.markdown_render")
if not all(hasattr(markdown_render, name) for name in ("render_markdown", "StreamingMarkdown")):
    pytest.skip("widgets.markdown_render no longer has render_markdown and StreamingMarkdown",
                allow_module_level=True)
render_markdown = markdown_render.render_markdown

FRAGMENTS = [
    "# ", "## ", "######## ", "\n", "\n\n", "- ", "* ", "1. ", "99999999999. ", "> ", ">>>>>>>>>>>>>>>>>>>> ", "    ",
    "```", "```python\n", "~~~", "`", "**", "*", "_", "__", "~~", "[", "]", "(", ")", "![alt](", "](", "<", ">",
    "<div>", "</div>", "<img src=x>", "<script>", "&amp;", "&#0;", "&#xD800;", "|", "| a | b |\n", "|---|\n",
    "|:-:|--:|\n", "---\n", "===\n", "\\", "[^1]", "[ref]: http://x\n", "- [ ] ", "- [x] ", "\t", "  \n",
    "https://example.org/a_b", "<https://x.y>", "$$", "\u202e", "\x00", "\x1b[2J", "\ud800", "😀", "é", "word ",
]
markdown = st.lists(st.one_of(st.sampled_from(FRAGMENTS), hostile_text), max_size=30).map("".join)


@given(markdown, st.lists(st.integers(min_value=0, max_value=400), max_size=8))
@example("> " * 200 + "deep", [])
@example("- " * 100 + "deep list", [])
@example("*" * 500, [])
@example("```\nunclosed fence \ud800", [3])
def test_any_answer_renders_and_streaming_equals_a_full_render(qapp, text, cuts) -> None:
    expected = render_markdown(text)
    expected.toPlainText()
    assert stream(text, [min(cut, len(text)) for cut in cuts], render_markdown("")).toHtml() == expected.toHtml()
