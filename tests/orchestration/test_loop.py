"""The tool loop against a scripted model at the engine boundary."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from orchestration.errors import BadRequestError, StreamError
from orchestration.events import RunEvent, parse_event
from orchestration.limits import LoopLimits
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import AssistantMessage, ToolResultMessage, UserMessage
from orchestration.scripted import ScriptedModel, Step
from orchestration.tool_api import ToolContext, ToolOutput
from orchestration.tool_turn import DENIED_BY_USER, ApprovalRequest
from tools.registry import Tool, ToolRegistry


class AddArgs(BaseModel):
    a: float
    b: float


class TextArgs(BaseModel):
    text: str = ""


class Recorder:
    def __init__(self) -> None:
        self.events: list[RunEvent] = []
        self._waiters: list[tuple[str, int, asyncio.Event]] = []

    def __call__(self, event: RunEvent) -> None:
        self.events.append(event)
        for kind, count, flag in self._waiters:
            if len(self.of(kind)) >= count:
                flag.set()

    async def wait_for(self, kind: str, count: int = 1) -> None:
        flag = asyncio.Event()
        self._waiters.append((kind, count, flag))
        if len(self.of(kind)) >= count:
            flag.set()
        await asyncio.wait_for(flag.wait(), 5.0)

    def of(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.type == kind]

    @property
    def types(self) -> list[str]:
        return [e.type for e in self.events]


class Probe:
    """Counts calls and concurrency of a test tool."""

    def __init__(self) -> None:
        self.calls = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.order: list[str] = []


def make_tools(probe: Probe) -> ToolRegistry:
    async def add(args: AddArgs, ctx: ToolContext) -> str:
        probe.calls += 1
        return str(args.a + args.b)

    async def slow(args: TextArgs, ctx: ToolContext) -> str:
        probe.calls += 1
        probe.in_flight += 1
        probe.max_in_flight = max(probe.max_in_flight, probe.in_flight)
        probe.order.append(args.text)
        await asyncio.sleep(0.05)
        probe.in_flight -= 1
        return f"slow {args.text}"

    async def serial(args: TextArgs, ctx: ToolContext) -> str:
        probe.in_flight += 1
        probe.max_in_flight = max(probe.max_in_flight, probe.in_flight)
        probe.order.append(args.text)
        await asyncio.sleep(0.01)
        probe.in_flight -= 1
        return f"serial {args.text}"

    async def big(args: TextArgs, ctx: ToolContext) -> ToolOutput:
        return ToolOutput(text="x" * 30_000, data={"n": 30_000})

    async def forever(args: TextArgs, ctx: ToolContext) -> str:
        await asyncio.Event().wait()
        return "never"

    async def boom(args: TextArgs, ctx: ToolContext) -> str:
        raise RuntimeError("disk on fire")

    async def guarded(args: TextArgs, ctx: ToolContext) -> str:
        probe.calls += 1
        return "did it"

    return ToolRegistry([
        Tool("add", "Add two numbers", AddArgs, add, category="utility", visibility="hidden"),
        Tool("slow", "Sleep a little", TextArgs, slow),
        Tool("serial", "Not parallel-safe", TextArgs, serial, parallel_safe=False),
        Tool("big", "Huge output", TextArgs, big),
        Tool("forever", "Never returns", TextArgs, forever, timeout=0.05),
        Tool("boom", "Always raises", TextArgs, boom),
        Tool("guarded", "Needs approval", TextArgs, guarded, needs_approval=True, category="file"),
    ])


@pytest.fixture
def probe() -> Probe:
    return Probe()


@pytest.fixture
def registry(probe: Probe) -> ToolRegistry:
    return make_tools(probe)


@pytest.fixture
def scripted() -> Iterator[list[ScriptedModel]]:
    """Every scripted model made in a test must have used all of its steps."""
    made: list[ScriptedModel] = []
    yield made
    for model in made:
        model.assert_exhausted()


def run(scripted: list[ScriptedModel], registry: ToolRegistry, steps: list[Step], *, tools: list[str] | None = None,
        limits: LoopLimits | None = None, approver: Any = None, prompt: str = "hi"):
    model = ScriptedModel(steps)
    scripted.append(model)
    recorder = Recorder()
    loop = RunLoop(model, registry, recorder, limits=limits, approver=approver)
    request = RunRequest(model="m", messages=[UserMessage(content=prompt)],
                         tool_names=registry.names() if tools is None else tools)
    result = asyncio.run(loop.run(request))
    return result, recorder, model


def assert_valid_stream(recorder: Recorder) -> None:
    seqs = [e.seq for e in recorder.events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert recorder.types[0] == "run_started" and recorder.types[-1] == "done"
    for event in recorder.events:
        again = parse_event(event.model_dump_json())
        assert again == event
        assert event.v == "1.4"


def test_each_model_call_is_bracketed_by_started_and_finished(scripted, registry):
    _, rec, _ = run(scripted, registry, [Step(calls=[("add", {"a": 1, "b": 2})]), Step(text="3")], tools=["add"])
    started, finished = rec.of("model_call_started"), rec.of("model_call_finished")
    assert [e.iteration for e in started] == [1, 2] and [e.iteration for e in finished] == [1, 2]
    assert started[0].tools == ["add"] and started[0].tool_choice == "auto" and started[0].message_count == 1
    assert started[1].message_count == 3  # user, assistant with the call, tool result
    assert finished[0].finish_reason == "tool_calls" and finished[1].finish_reason == "stop"
    assert finished[1].first_token_ms is not None and finished[1].duration_ms >= finished[1].first_token_ms
    types = rec.types
    assert types.index("model_call_finished") < types.index("tool_executing")


def test_plain_answer_streams_content_and_stops(scripted, registry):
    result, rec, model = run(scripted, registry, [Step(text=["Hel", "lo"], reasoning="think")])
    assert_valid_stream(rec)
    assert rec.types == ["run_started", "model_call_started", "reasoning", "content", "content",
                         "model_call_finished", "done"]
    assert "".join(e.content for e in rec.of("content")) == "Hello"
    assert rec.of("done")[0].finish_reason == "stop"
    assert result.answer == "Hello"
    assert [t.name for t in model.requests[0].tools] == registry.names()


def test_tool_round_trip_sends_calls_and_results_back(scripted, registry, probe):
    result, rec, model = run(scripted, registry, [
        Step(calls=[("add", {"a": 2, "b": 3})], call_ids=["c1"]),
        Step(text="It is 5."),
    ])
    assert_valid_stream(rec)
    assert rec.types.index("tool_calls") < rec.types.index("tool_executing") < rec.types.index("tool_result")
    res = rec.of("tool_result")[0]
    assert (res.id, res.status, res.result, res.category, res.visibility) == ("c1", "ok", "5.0", "utility", "hidden")
    second = model.requests[1].messages
    assert isinstance(second[1], AssistantMessage) and second[1].tool_calls[0].id == "c1"
    assert isinstance(second[2], ToolResultMessage) and (second[2].call_id, second[2].content) == ("c1", "5.0")
    assert [e.iteration for e in rec.of("content")] == [2]
    assert result.finish_reason == "stop" and probe.calls == 1


def test_max_iterations_forces_a_final_answer_without_tools(scripted, registry):
    steps = [Step(text="step", calls=[("add", {"a": i, "b": 1})]) for i in range(2)]
    steps.append(Step(text="final"))
    result, rec, model = run(scripted, registry, steps, limits=LoopLimits(max_iterations=2))
    assert [r.tool_choice for r in model.requests] == ["auto", "auto", "none"]
    assert [w.code for w in rec.of("warning")] == ["MAX_ITERATIONS"]
    assert result.finish_reason == "max_iterations" and result.answer == "final"
    assert isinstance(model.requests[2].messages[-1], ToolResultMessage)


def test_three_tool_only_turns_force_final_answer(scripted, registry):
    steps = [Step(calls=[("add", {"a": i, "b": 1})]) for i in range(3)] + [Step(text="done now")]
    result, rec, model = run(scripted, registry, steps)
    assert model.requests[-1].tool_choice == "none"
    assert [w.code for w in rec.of("warning")] == ["TOOL_ONLY_LIMIT"]
    assert result.finish_reason == "tool_limit"


def test_final_call_tool_requests_are_ignored(scripted, registry):
    steps = [Step(calls=[("add", {"a": 1, "b": 1})]), Step(text="x", calls=[("add", {"a": 2, "b": 2})])]
    result, rec, _ = run(scripted, registry, steps, limits=LoopLimits(max_iterations=1))
    assert [w.code for w in rec.of("warning")] == ["MAX_ITERATIONS", "TOOL_CALLS_IGNORED"]
    last = result.new_messages[-1]
    assert isinstance(last, AssistantMessage) and last.tool_calls == [] and last.text == "x"


def test_clamp_runs_six_and_answers_the_rest(scripted, registry, probe):
    calls = [("add", {"a": i, "b": 0}) for i in range(8)]
    result, rec, _ = run(scripted, registry, [Step(text="go", calls=calls), Step(text="ok")])
    assert probe.calls == 6
    results = rec.of("tool_result")
    assert len(results) == 8
    assert [r.status for r in results].count("error") == 2
    assert [w.code for w in rec.of("warning")] == ["TOOL_CLAMP"]
    tool_messages = [m for m in result.new_messages if isinstance(m, ToolResultMessage)]
    assert [m.call_id for m in tool_messages] == [f"call_{i}" for i in range(8)]


def test_identical_calls_run_once_and_share_the_result(scripted, registry, probe):
    calls = [("add", '{"a": 1, "b": 2}'), ("add", '{"b": 2, "a": 1}'), ("add", '{"a": 5, "b": 2}')]
    _, rec, model = run(scripted, registry, [Step(text="t", calls=calls), Step(text="ok")])
    assert probe.calls == 2
    results = {r.id: r.result for r in rec.of("tool_result")}
    assert results == {"call_0": "3.0", "call_1": "3.0", "call_2": "7.0"}
    assert len(rec.of("tool_executing")) == 2
    sent = [m for m in model.requests[1].messages if isinstance(m, ToolResultMessage)]
    assert [m.call_id for m in sent] == ["call_0", "call_1", "call_2"]


def test_output_is_truncated_to_the_tool_budget_and_marked(scripted, registry):
    _, rec, _ = run(scripted, registry, [Step(text="t", calls=[("big", {})]), Step(text="ok")],
                    limits=LoopLimits(tool_output_chars=1_000))
    res = rec.of("tool_result")[0]
    assert res.truncated and res.result.startswith("x" * 1_000)
    assert "[truncated: showing 1000 of 30000 characters]" in res.result
    assert res.data == {"n": 30_000}


def test_turn_budget_is_shared_between_calls(scripted, registry):
    calls = [("big", {"text": "1"}), ("big", {"text": "2"})]
    _, rec, _ = run(scripted, registry, [Step(text="t", calls=calls), Step(text="ok")],
                    limits=LoopLimits(tool_output_chars=20_000, turn_output_chars=25_000))
    first, second = rec.of("tool_result")
    assert "showing 20000 of 30000" in first.result
    assert "showing 5000 of 30000" in second.result


def test_timeout_gives_status_timeout(scripted, registry):
    result, rec, _ = run(scripted, registry, [Step(text="t", calls=[("forever", {})]), Step(text="ok")])
    res = rec.of("tool_result")[0]
    assert res.status == "timeout" and "0.05 s" in res.result
    assert result.finish_reason == "stop"


def test_parallel_safe_tools_run_concurrently_within_the_bound(scripted, registry, probe):
    calls = [("slow", {"text": str(i)}) for i in range(4)]
    run(scripted, registry, [Step(text="t", calls=calls), Step(text="ok")], limits=LoopLimits(max_parallel_tools=2))
    assert probe.max_in_flight == 2


def test_unsafe_tools_run_alone_and_in_order(scripted, registry, probe):
    calls = [("serial", {"text": str(i)}) for i in range(3)] + [("slow", {"text": "p"})]
    run(scripted, registry, [Step(text="t", calls=calls), Step(text="ok")])
    assert probe.max_in_flight == 1
    assert probe.order == ["0", "1", "2", "p"]


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        (("nope", {}), "Unknown tool 'nope'. Available tools: add, slow"),
        (("add", "lorem ipsum"), "The arguments for add are not valid JSON"),
        (("add", '["a"]'), "must be a JSON object"),
        (("add", {"a": "x", "b": 1}), "Invalid arguments for add: a: Input should be a valid number"),
        (("boom", {}), "boom failed: RuntimeError: disk on fire"),
    ],
)
def test_bad_calls_become_results_the_model_reads(scripted, registry, call, expected):
    result, rec, model = run(scripted, registry, [Step(text="t", calls=[call]), Step(text="ok")])
    res = rec.of("tool_result")[0]
    assert res.status == "error"
    assert expected in res.result
    sent = model.requests[1].messages[-1]
    assert isinstance(sent, ToolResultMessage) and expected in sent.content
    assert result.finish_reason == "stop"


def test_malformed_json_is_repaired_once_with_a_warning(scripted, registry):
    _, rec, _ = run(scripted, registry, [Step(text="t", calls=[("add", "{'a': 1, 'b': 2,}")]), Step(text="ok")])
    assert rec.of("tool_result")[0].result == "3.0"
    assert [w.code for w in rec.of("warning")] == ["ARGUMENTS_REPAIRED"]


def test_empty_arguments_mean_no_arguments(scripted, registry):
    _, rec, _ = run(scripted, registry, [Step(text="t", calls=[("slow", "")]), Step(text="ok")])
    assert rec.of("tool_result")[0].result == "slow "


def test_tools_rejected_retries_once_without_tools(scripted, registry):
    rejected = BadRequestError("bad", status=400, body='{"error": "model does not support tools"}')
    result, rec, model = run(scripted, registry, [Step(error=rejected), Step(text="plain")])
    assert [w.code for w in rec.of("warning")] == ["TOOLS_REJECTED"]
    assert model.requests[0].tools and not model.requests[1].tools
    assert result.answer == "plain" and result.finish_reason == "stop"


def test_other_provider_errors_end_the_run_with_an_error_event(scripted, registry):
    rejected = BadRequestError("The server rejected the request (400).", status=400, body="{}")
    result, rec, _ = run(scripted, registry, [Step(error=rejected)])
    err = rec.of("error")[0]
    assert (err.code, err.status, err.retryable) == ("bad_request", 400, False)
    assert result.finish_reason == "error" and rec.of("done")[0].finish_reason == "error"


def test_midstream_error_keeps_partial_content(scripted, registry):
    broken = StreamError("The stream broke.")
    result, rec, _ = run(scripted, registry, [Step(text=["par", "tial"], error=broken, error_after_output=True)])
    assert rec.types[-2:] == ["error", "done"]
    assert result.finish_reason == "error"
    assert result.new_messages[-1].text == "partial"


def test_tool_needing_approval_is_denied_without_an_approver(scripted, registry, probe):
    _, rec, _ = run(scripted, registry, [Step(text="t", calls=[("guarded", {})]), Step(text="ok")])
    res = rec.of("tool_result")[0]
    assert res.status == "denied" and probe.calls == 0


@pytest.mark.parametrize(("decision", "status", "calls"), [("allow", "ok", 2), ("deny", "denied", 1)])
def test_approver_decides(scripted, registry, probe, decision, status, calls):
    asked: list[list[ApprovalRequest]] = []

    async def approver(requests: list[ApprovalRequest]) -> dict[str, str]:
        asked.append(requests)
        return {r.call_id: decision for r in requests}

    _, rec, _ = run(scripted, registry, [Step(text="t", calls=[("guarded", {"text": "a"}), ("add", {"a": 1, "b": 1})]),
                                         Step(text="ok")], approver=approver)
    assert [[(r.name, r.arguments) for r in batch] for batch in asked] == [[("guarded", {"text": "a"})]]
    res = {r.name: r for r in rec.of("tool_result")}
    assert res["guarded"].status == status and probe.calls == calls
    if decision == "deny":
        assert res["guarded"].result == DENIED_BY_USER


def test_usage_is_reported_per_call_and_summed(scripted, registry):
    from orchestration.engine import TokenUsage

    steps = [Step(text="t", calls=[("add", {"a": 1, "b": 1})], usage=TokenUsage(input_tokens=10, output_tokens=2)),
             Step(text="ok", usage=TokenUsage(input_tokens=20, output_tokens=3, reasoning_tokens=1))]
    result, rec, _ = run(scripted, registry, steps)
    assert [(u.input_tokens, u.output_tokens) for u in rec.of("usage")] == [(10, 2), (20, 3)]
    assert (result.usage.input_tokens, result.usage.output_tokens, result.usage.reasoning_tokens) == (30, 5, 1)


def test_no_tools_selected_sends_no_tools(scripted, registry):
    _, _, model = run(scripted, registry, [Step(text="hi")], tools=[])
    assert model.requests[0].tools == []


async def test_cancel_during_stream_keeps_partial_and_closes_stream(registry):
    model = ScriptedModel([Step(text=["partial ", "answer"], hang_after_output=True)])
    rec = Recorder()
    loop = RunLoop(model, registry, rec)
    task = asyncio.create_task(loop.run(RunRequest(model="m", messages=[UserMessage(content="hi")])))
    await rec.wait_for("content", 2)
    task.cancel()
    result = await asyncio.wait_for(task, 1.0)
    assert result.finish_reason == "cancelled"
    assert rec.types[-1] == "done" and rec.of("done")[0].finish_reason == "cancelled"
    assert result.new_messages[-1].text == "partial answer"
    assert model.closed_streams == 1


async def test_cancel_during_tool_stops_the_tool(registry):
    model = ScriptedModel([Step(text="t", calls=[("slow", {"text": "a"}), ("slow", {"text": "b"})]),
                           Step(text="never")])
    rec = Recorder()
    loop = RunLoop(model, registry, rec, limits=LoopLimits(tool_timeout=60))
    task = asyncio.create_task(loop.run(RunRequest(model="m", messages=[UserMessage(content="hi")],
                                                   tool_names=["slow"])))
    await rec.wait_for("tool_executing")
    task.cancel()
    result = await asyncio.wait_for(task, 1.0)
    assert result.finish_reason == "cancelled"
    assert rec.of("tool_result") == []
    assert len(model.steps) == 1  # the second call never happened
    assert json.loads(rec.events[-1].model_dump_json())["finish_reason"] == "cancelled"
