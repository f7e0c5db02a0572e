"""ResponseAccumulator: assembling streamed deltas into one assistant message."""

from __future__ import annotations

from orchestration.accumulate import ResponseAccumulator, merge_reasoning_details
from orchestration.engine import (
    ProviderEvent,
    ReasoningChunk,
    ResponseComplete,
    ResponseStarted,
    TextChunk,
    TokenUsage,
    ToolCallReady,
    UsageReport,
)
from orchestration.messages import ReasoningPart, TextPart, ToolCallPart


def ready(events: list[ProviderEvent]) -> list[tuple[str, str, str]]:
    return [(e.call.id, e.call.name, e.call.arguments) for e in events if isinstance(e, ToolCallReady)]


def complete(acc: ResponseAccumulator, finish: str = "stop") -> ResponseComplete:
    events = acc.finish(finish)  # type: ignore[arg-type]
    last = events[-1]
    assert isinstance(last, ResponseComplete)
    return last


def test_text_and_reasoning_parts_keep_their_order() -> None:
    acc = ResponseAccumulator()
    events = acc.meta("r1", "m") + acc.reasoning("think ") + acc.reasoning("more")
    events += acc.text("Hel") + acc.text("lo")
    assert events == [ResponseStarted(response_id="r1", model="m"), ReasoningChunk(text="think "),
                      ReasoningChunk(text="more"), TextChunk(text="Hel"), TextChunk(text="lo")]
    assert acc.text("") == [] and acc.reasoning("") == []
    msg = complete(acc).message
    assert [type(p) for p in msg.parts] == [ReasoningPart, TextPart]
    assert (msg.text, msg.reasoning, msg.response_id, msg.model) == ("Hello", "think more", "r1", "m")


def test_meta_keeps_the_first_id_and_starts_once() -> None:
    acc = ResponseAccumulator()
    assert len(acc.meta("a", "m1")) == 1
    assert acc.meta("b", "m2") == []
    assert (acc.response_id, acc.model) == ("a", "m1")


def test_finish_without_meta_still_starts() -> None:
    acc = ResponseAccumulator()
    events = acc.finish("stop")
    assert isinstance(events[0], ResponseStarted) and isinstance(events[-1], ResponseComplete)


def test_index_keyed_calls_with_raw_arguments_preserved() -> None:
    acc = ResponseAccumulator()
    events = acc.tool_call_delta(index=0, id="c0", name="add", arguments="")
    events += acc.tool_call_delta(index=0, arguments='{"a": ')
    events += acc.tool_call_delta(index=0, arguments='1,  "b":2}')
    assert ready(events) == []  # not announced until another call starts or the stream ends
    events += acc.tool_call_delta(index=1, id="c1", name="neg", arguments='{"x"')
    assert ready(events) == [("c0", "add", '{"a": 1,  "b":2}')]  # announced as soon as call 1 starts
    events = acc.tool_call_delta(index=1, arguments=": 3}")
    done = acc.finish("tool_calls")
    assert ready(events + done) == [("c1", "neg", '{"x": 3}')]
    final = done[-1]
    assert isinstance(final, ResponseComplete)
    assert [(c.id, c.name, c.arguments) for c in final.message.tool_calls] == [
        ("c0", "add", '{"a": 1,  "b":2}'), ("c1", "neg", '{"x": 3}')]


def test_interleaved_index_deltas() -> None:
    acc = ResponseAccumulator()
    acc.tool_call_delta(index=0, id="a", name="f", arguments="{")
    acc.tool_call_delta(index=1, id="b", name="g", arguments="{")
    acc.tool_call_delta(index=0, arguments="}")
    acc.tool_call_delta(index=1, arguments='"k":1}')
    calls = complete(acc).message.tool_calls
    assert [(c.id, c.arguments) for c in calls] == [("a", "{}"), ("b", '{"k":1}')]


def test_id_keyed_calls_without_index_like_mistral() -> None:
    """Mistral sends two complete calls in one delta, with ids and no index."""
    acc = ResponseAccumulator()
    events = acc.tool_call_delta(id="nqjf8Hqe1", name="plus", arguments='{"a": 1, "b": 2}')
    events += acc.tool_call_delta(id="ATcpCKul3", name="minus", arguments='{"a": 2, "b": 1}')
    assert ready(events) == [("nqjf8Hqe1", "plus", '{"a": 1, "b": 2}')]
    calls = complete(acc).message.tool_calls
    assert [(c.id, c.name) for c in calls] == [("nqjf8Hqe1", "plus"), ("ATcpCKul3", "minus")]


def test_id_repeated_on_every_delta_continues_the_call() -> None:
    acc = ResponseAccumulator()
    acc.tool_call_delta(id="x", name="f", arguments='{"a"')
    acc.tool_call_delta(id="x", arguments=": 1}")
    acc.tool_call_delta(index=None, id=None, arguments="")  # nothing new: continues the last call
    assert [(c.id, c.arguments) for c in complete(acc).message.tool_calls] == [("x", '{"a": 1}')]


def test_id_only_delta_finds_a_call_started_with_an_index() -> None:
    acc = ResponseAccumulator()
    acc.tool_call_delta(index=0, id="x", name="f", arguments="{")
    acc.tool_call_delta(id="x", arguments="}")
    assert [(c.id, c.arguments) for c in complete(acc).message.tool_calls] == [("x", "{}")]


def test_index_reused_with_a_new_id_starts_a_new_call() -> None:
    """Some servers number every call 0; a different id still means a different call."""
    acc = ResponseAccumulator()
    events = acc.tool_call_delta(index=0, id="a", name="f", arguments='{"n": 1}')
    events += acc.tool_call_delta(index=0, id="b", name="g", arguments='{"n": ')
    events += acc.tool_call_delta(index=0, arguments="2}")
    assert ready(events) == [("a", "f", '{"n": 1}')]
    calls = complete(acc).message.tool_calls
    assert [(c.id, c.name, c.arguments) for c in calls] == [("a", "f", '{"n": 1}'), ("b", "g", '{"n": 2}')]


def test_ids_are_assigned_when_none_are_sent() -> None:
    acc = ResponseAccumulator()
    events = acc.tool_call_delta(index=0, name="f", arguments="{}")
    events += acc.tool_call_delta(index=1, name="g", arguments="")
    final = acc.finish("tool_calls")
    announced = ready(events + final)
    assert len(announced) == 2
    ids = [a[0] for a in announced]
    assert all(i.startswith("call_") for i in ids) and len(set(ids)) == 2
    msg = final[-1].message  # type: ignore[union-attr]
    assert [c.id for c in msg.tool_calls] == ids  # the announced id is the one kept in the message


def test_first_name_wins_and_later_repeats_are_ignored() -> None:
    acc = ResponseAccumulator()
    acc.tool_call_delta(index=0, id="a", name="search", arguments='{"q":')
    acc.tool_call_delta(index=0, name="search", arguments='"x"}')
    [call] = complete(acc).message.tool_calls
    assert (call.name, call.arguments) == ("search", '{"q":"x"}')


def test_incomplete_arguments_are_not_announced_early_but_are_at_finish() -> None:
    acc = ResponseAccumulator()
    events = acc.tool_call_delta(index=0, id="a", name="f", arguments='{"broken": ')
    events += acc.tool_call_delta(index=1, id="b", name="g", arguments="{}")
    assert ready(events) == []  # call 0 does not parse yet
    final = acc.finish("tool_calls")
    assert ready(final) == [("a", "f", '{"broken": '), ("b", "g", "{}")]


def test_whole_calls_are_announced_at_once() -> None:
    acc = ResponseAccumulator()
    events = acc.text("Let me check.")
    events += acc.tool_call(id="w1", name="f", arguments='{"a":1}', opaque={"sig": "s"})
    assert ready(events) == [("w1", "f", '{"a":1}')]
    msg = complete(acc).message
    assert [type(p) for p in msg.parts] == [TextPart, ToolCallPart]
    assert msg.tool_calls[0].opaque == {"sig": "s"}
    assert ready(acc.finish("tool_calls")) == []  # never announced twice


def test_stop_with_tool_calls_finishes_as_tool_calls() -> None:
    acc = ResponseAccumulator()
    acc.tool_call_delta(index=0, id="a", name="f", arguments="{}")
    assert complete(acc, "stop").finish_reason == "tool_calls"
    assert complete(ResponseAccumulator(), "length").finish_reason == "length"


def test_usage_is_reported_and_kept() -> None:
    acc = ResponseAccumulator()
    usage = TokenUsage(input_tokens=3, output_tokens=4, raw={"prompt_tokens": 3})
    assert acc.set_usage(usage) == [UsageReport(usage=usage)]
    assert complete(acc).usage == usage


def test_snapshot_is_a_copy_of_what_arrived() -> None:
    acc = ResponseAccumulator()
    acc.text("par")
    acc.tool_call_delta(index=0, name="f", arguments='{"a"')
    snap = acc.snapshot()
    acc.text("tial")
    assert snap.text == "par"
    assert snap.tool_calls[0].arguments == '{"a"'
    assert acc.snapshot().tool_calls[0].id == snap.tool_calls[0].id  # the assigned id is stable


def test_reasoning_records_are_merged_onto_the_reasoning_part() -> None:
    acc = ResponseAccumulator()
    acc.reasoning("Hi")
    acc.reasoning_record({"type": "reasoning.text", "text": "", "signature": "", "index": 0})
    acc.reasoning_record({"type": "reasoning.text", "text": "Hi", "index": 0})
    acc.reasoning_record({"type": "reasoning.text", "signature": "SIG", "index": 0})
    acc.reasoning_signature("ab")
    acc.reasoning_signature("cd")
    acc.text("answer")
    msg = complete(acc).message
    [part] = [p for p in msg.parts if isinstance(p, ReasoningPart)]
    assert part.details == [{"type": "reasoning.text", "text": "Hi", "signature": "SIG", "index": 0}]
    assert part.signature == "abcd"


def test_opaque_reasoning_without_text_gets_its_own_part() -> None:
    acc = ResponseAccumulator()
    acc.text("answer")
    acc.reasoning_record({"type": "reasoning.encrypted", "data": "xyz", "index": 0})
    msg = complete(acc).message
    assert isinstance(msg.parts[0], ReasoningPart) and msg.parts[0].text == ""
    assert msg.parts[0].details == [{"type": "reasoning.encrypted", "data": "xyz", "index": 0}]
    assert msg.text == "answer"


def test_merge_reasoning_details_keeps_separate_indexes_and_types() -> None:
    merged = merge_reasoning_details([
        {"type": "reasoning.text", "text": "a", "index": 0},
        {"type": "reasoning.encrypted", "data": "E", "index": 0},
        {"type": "reasoning.text", "text": "b", "index": 1},
        {"type": "reasoning.text", "text": "c", "index": 0, "format": None},
    ])
    assert merged == [
        {"type": "reasoning.text", "text": "ac", "index": 0, "format": None},
        {"type": "reasoning.encrypted", "data": "E", "index": 0},
        {"type": "reasoning.text", "text": "b", "index": 1},
    ]
