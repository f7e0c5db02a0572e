"""Token counts a provider did not report are unknown (null), not 0, from the loop's events to the trace; events
stored by earlier contract versions still parse (contract 1.3)."""

from __future__ import annotations

import asyncio

from orchestration.engine import TokenUsage
from orchestration.events import CONTRACT_VERSION, ModelCallFinished, RunEvent, parse_event
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.run_trace import RunSummary, RunTrace
from orchestration.scripted import ScriptedModel, Step
from tools.registry import ToolRegistry


def run(step: Step) -> tuple[list[RunEvent], object]:
    model = ScriptedModel([step])
    events: list[RunEvent] = []
    result = asyncio.run(RunLoop(model, ToolRegistry([]), events.append).run(
        RunRequest(model="m", messages=[UserMessage(content="x")])))
    model.assert_exhausted()
    return events, result


def test_no_usage_gives_null_counts_and_no_usage_event() -> None:
    events, result = run(Step(text="hi"))
    (finished,) = [e for e in events if e.type == "model_call_finished"]
    assert (finished.input_tokens, finished.output_tokens, finished.reasoning_tokens, finished.cached_tokens) == (
        None, None, None, None)
    assert '"input_tokens":null' in finished.model_dump_json()
    assert [e for e in events if e.type == "usage"] == [] and result.usage is None
    assert RunTrace.from_events(events).summary().input_tokens is None


def test_reported_usage_is_counted() -> None:
    events, result = run(Step(text="hi", usage=TokenUsage(input_tokens=3, output_tokens=0)))
    (finished,) = [e for e in events if e.type == "model_call_finished"]
    assert (finished.input_tokens, finished.output_tokens) == (3, 0)  # a reported 0 stays 0
    assert result.usage is not None and result.usage.input_tokens == 3


def test_the_contract_is_1_4_and_older_events_parse() -> None:
    assert CONTRACT_VERSION == "1.4"
    for version in ("1.1", "1.2", "1.3"):
        old = parse_event(f'{{"v": "{version}", "run_id": "r", "seq": 3, "ts": 0, "iteration": 1, '
                          '"type": "model_call_finished", "finish_reason": "stop", "duration_ms": 4, '
                          '"input_tokens": 12, "output_tokens": 7, "reasoning_tokens": 0, "cached_tokens": 0}')
        assert isinstance(old, ModelCallFinished) and (old.v, old.input_tokens, old.output_tokens) == (version, 12, 7)


def test_summary_label_says_unknown() -> None:
    summary = RunSummary(run_id="r", started_ms=0, ended_ms=1000, iterations=1, finish_reason="stop",
                         input_tokens=None, output_tokens=None)
    assert "unknown in · unknown out" in summary.label()
    assert "1,200 in · 0 out" in RunSummary(run_id="r", started_ms=0, ended_ms=1000, iterations=1,
                                            finish_reason="stop", input_tokens=1200, output_tokens=0).label()
