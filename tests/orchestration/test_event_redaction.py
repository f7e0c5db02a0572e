"""Events leaving a run (terminal, --json, storage) carry no known secret, even split across streamed pieces."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from orchestration.event_redaction import RedactingEmitter
from orchestration.events import (
    ContentDelta,
    Done,
    ReasoningDelta,
    RunError,
    RunEvent,
    ToolCallInfo,
    ToolCalls,
    ToolResult,
)
from orchestration.redaction import REDACTED

KEY = "sk-echo-test-key-not-real-77aa"
TEXT = f"Here it is: {KEY}. And {KEY}!"


def pieces_of(text: str, cuts: list[int]) -> list[str]:
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    return [text[a:b] for a, b in itertools.pairwise(points)]


def stream(kinds_and_texts: list[tuple[str, str]], iteration: int = 1) -> list[RunEvent]:
    events: list[RunEvent] = []
    for seq, (kind, text) in enumerate(kinds_and_texts, 1):
        cls = ContentDelta if kind == "content" else ReasoningDelta
        events.append(cls(run_id="r", seq=seq, ts=seq, iteration=iteration, content=text))
    events.append(Done(run_id="r", seq=len(events) + 1, ts=0, iteration=iteration, finish_reason="stop"))
    return events


def through(events: list[RunEvent], secrets: list[str]) -> list[RunEvent]:
    out: list[RunEvent] = []
    emit = RedactingEmitter(out.append, secrets)
    for event in events:
        emit(event)
    return out


@settings(max_examples=300, deadline=None)
@given(cuts=st.lists(st.integers(min_value=0, max_value=200), max_size=25))
def test_a_key_split_across_streamed_pieces_never_comes_out(cuts):
    out = through(stream([("content", p) for p in pieces_of(TEXT, cuts)]), [KEY])
    text = "".join(e.content for e in out if e.type == "content")
    assert text == f"Here it is: {REDACTED}. And {REDACTED}!"
    assert all(KEY[:9] not in e.content for e in out if e.type == "content")
    seqs = [e.seq for e in out]
    assert seqs == sorted(set(seqs)) and out[-1].type == "done"


def test_a_held_piece_goes_out_unchanged_when_no_key_follows():
    out = through(stream([("content", "ends with sk-ec"), ("reasoning", "thinking"), ("content", "ho, no key")]),
                  [KEY])
    assert [(e.type, e.seq, e.content) for e in out if e.type != "done"] == [
        ("content", 1, "ends with sk-ec"), ("reasoning", 2, "thinking"), ("content", 3, "ho, no key")]


def test_reasoning_and_content_are_redacted_alike():
    out = through(stream([("reasoning", "I see sk-echo-te"), ("reasoning", "st-key-not-real-77aa here")]), [KEY])
    assert "".join(e.content for e in out if e.type == "reasoning") == f"I see {REDACTED} here"


def test_tool_calls_results_and_errors_are_redacted():
    events: list[RunEvent] = [
        ToolCalls(run_id="r", seq=1, ts=0, iteration=1,
                  calls=[ToolCallInfo(id="c1", name="calculate", arguments=f'{{"expression": "{KEY}"}}')]),
        ToolResult(run_id="r", seq=2, ts=0, iteration=1, id="c1", name="calculate", result=f"bad: {KEY}",
                   status="error", duration_ms=1, category="utility", visibility="hidden", truncated=False,
                   data={"echo": [KEY, 1]}),
        RunError(run_id="r", seq=3, ts=0, iteration=1, message="see https://x.test/?key=abcdefghij and "
                 "Bearer abcdefghijkl", code="authentication", status=401, retryable=False),
    ]
    calls, result, error = through(events, [KEY])
    assert calls.calls[0].arguments == f'{{"expression": "{REDACTED}"}}'
    assert (result.result, result.data) == (f"bad: {REDACTED}", {"echo": [REDACTED, 1]})
    assert error.message == f"see https://x.test/?key={REDACTED} and Bearer {REDACTED}"
    assert through(events[2:], [])[0].message == error.message  # without a key in use, too


def test_without_secrets_events_pass_unchanged():
    events = stream([("content", "sk-echo"), ("content", " plain")])
    assert through(events, []) == events
    assert through(events, ["short"]) == events  # secrets under 8 characters are never matched
