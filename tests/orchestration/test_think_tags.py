"""ThinkTagSplitter and InlineReasoning: <think>...</think> reasoning split out of streamed text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestration.accumulate import ResponseAccumulator
from orchestration.engine import ReasoningChunk, TextChunk
from orchestration.think_tags import InlineReasoning, ThinkTagSplitter


def split_all(pieces: list[str]) -> tuple[str, str]:
    splitter = ThinkTagSplitter()
    out = [p for piece in pieces for p in splitter.feed(piece)] + splitter.flush()
    return ("".join(t for k, t in out if k == "reasoning"), "".join(t for k, t in out if k == "text"))


@pytest.mark.parametrize(("pieces", "expected"), [
    (["<think>plan</think>\n\nAnswer"], ("plan", "Answer")),
    (["\n<thi", "nk>pl", "an</th", "ink>", "\n", "Ans", "wer"], ("plan", "Answer")),
    (["Plain answer"], ("", "Plain answer")),
    (["  ", "Plain"], ("", "  Plain")),
    (["<b>bold</b>"], ("", "<b>bold</b>")),
    (["Use <think>tags</think> like this"], ("", "Use <think>tags</think> like this")),
    (["<think>never closed"], ("never closed", "")),
    (["<think>a < b </thin"], ("a < b </thin", "")),
    (["<thi"], ("", "<thi")),
    (["<think></think>x"], ("", "x")),
])
def test_think_tags(pieces: list[str], expected: tuple[str, str]) -> None:
    assert split_all(pieces) == expected


def test_think_splitter_streams_reasoning_before_the_close_tag() -> None:
    splitter = ThinkTagSplitter()
    assert splitter.feed("<think>step one") == [("reasoning", "step one")]
    assert splitter.feed(" and</") == [("reasoning", " and")]  # "</" might start </think>
    assert splitter.feed("p> two") == [("reasoning", "</p> two")]


@settings(max_examples=150, deadline=None, database=None)
@given(reasoning=st.text(max_size=40).filter(lambda s: "</think>" not in s),
       answer=st.text(max_size=40).filter(lambda s: s == s.lstrip()),
       cuts=st.lists(st.integers(0, 120), max_size=12))
def test_think_tags_survive_any_chunking(reasoning: str, answer: str, cuts: list[int]) -> None:
    text = f"<think>{reasoning}</think>\n{answer}"
    points = sorted({c for c in cuts if 0 < c < len(text)})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    assert split_all(pieces) == (reasoning, answer)


def test_inline_reasoning_routes_pieces_into_the_accumulator() -> None:
    acc = ResponseAccumulator()
    inline = InlineReasoning(acc, enabled=True)
    events = inline.text("<think>we") + inline.text("igh</thi") + inline.text("nk>\nAnswer") + inline.flush()
    assert events == [ReasoningChunk(text="we"), ReasoningChunk(text="igh"), TextChunk(text="Answer")]
    message = acc.snapshot()
    assert (message.reasoning, message.text) == ("weigh", "Answer")


def test_inline_reasoning_disabled_leaves_text_alone() -> None:
    acc = ResponseAccumulator()
    inline = InlineReasoning(acc, enabled=False)
    assert inline.text("<think>x</think>y") == [TextChunk(text="<think>x</think>y")]
    assert inline.flush() == []
