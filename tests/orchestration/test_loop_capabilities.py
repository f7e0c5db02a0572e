"""The loop reads the provider's capabilities: parallel tool calls default, the tool limit (most relevant tools
first, warning TOOLS_LIMITED), response_format and reasoning controls only where supported, model families."""

from __future__ import annotations

from pydantic import BaseModel

from orchestration.engine import ModelRequest
from orchestration.events import RunEvent
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import AssistantMessage, ToolCallPart, ToolResultMessage, UserMessage
from orchestration.providers.config import Capabilities, ModelFamily
from orchestration.scripted import ScriptedModel, Step
from orchestration.tool_api import ToolContext
from orchestration.tool_selection import select_tools, used_tool_names
from tools.registry import Tool, ToolRegistry


class NoArgs(BaseModel):
    pass


async def ok(args: NoArgs, ctx: ToolContext) -> str:
    return "ok"


def registry(*names: str) -> ToolRegistry:
    return ToolRegistry(Tool(name, f"tool {name}", NoArgs, ok) for name in names)


async def run(caps: Capabilities, request: RunRequest, steps: list[Step],
              tools: ToolRegistry | None = None) -> tuple[ScriptedModel, list[RunEvent]]:
    model = ScriptedModel(steps, capabilities=caps)
    events: list[RunEvent] = []
    await RunLoop(model, tools or registry("a", "b"), events.append).run(request)
    model.assert_exhausted()
    return model, events


def warnings(events: list[RunEvent]) -> list[str]:
    return [e.code for e in events if e.type == "warning"]


def hi(**kwargs: object) -> RunRequest:
    return RunRequest(model="m", messages=[UserMessage(content="hi")], **kwargs)  # type: ignore[arg-type]


async def test_parallel_tool_calls_default_comes_from_capabilities() -> None:
    off = Capabilities(parallel_tool_calls_default=False)
    model, _ = await run(off, hi(tool_names=["a"]), [Step(text="x")])
    assert model.requests[0].parallel_tool_calls is False
    model, _ = await run(off, hi(tool_names=["a"], parallel_tool_calls=True), [Step(text="x")])
    assert model.requests[0].parallel_tool_calls is True  # the run's own choice wins
    model, _ = await run(Capabilities(), hi(tool_names=["a"]), [Step(text="x")])
    assert model.requests[0].parallel_tool_calls is None  # left to the provider
    model, _ = await run(off, hi(), [Step(text="x")])
    assert model.requests[0].parallel_tool_calls is None  # no tools, no switch


async def test_tool_limit_sends_the_most_relevant_and_warns_once() -> None:
    history = [UserMessage(content="earlier"),
               AssistantMessage(parts=[ToolCallPart(id="c0", name="d", arguments="{}")]),
               ToolResultMessage(call_id="c0", name="d", content="ok"),
               UserMessage(content="again")]
    request = RunRequest(model="m", messages=history, tool_names=["a", "b", "c", "d"])
    model, events = await run(Capabilities(max_tools=2), request,
                              [Step(calls=[("d", {})]), Step(text="done")], registry("a", "b", "c", "d"))
    assert [t.name for t in model.requests[0].tools] == ["a", "d"]  # d was used; then registry order
    assert [t.name for t in model.requests[1].tools] == ["a", "d"]  # the same set: the request stays stable
    assert warnings(events) == ["TOOLS_LIMITED"]
    warning = next(e for e in events if e.type == "warning")
    assert "at most 2 tools" in warning.message and "b, c" in warning.message


async def test_a_tool_left_out_by_the_limit_is_not_run_when_called() -> None:
    request = RunRequest(model="m", messages=[UserMessage(content="hi")], tool_names=["a", "b", "c"])

    def told_what_is_available(model_request: ModelRequest) -> None:
        result = model_request.messages[-1]
        assert isinstance(result, ToolResultMessage) and result.status == "error"
        assert result.content == "Unknown tool 'c'. Available tools: a, b."

    model, events = await run(Capabilities(max_tools=2), request,
                              [Step(calls=[("c", {})]), Step(text="done", check=told_what_is_available)],
                              registry("a", "b", "c"))
    assert [t.name for t in model.requests[0].tools] == ["a", "b"]
    assert [e.type for e in events if e.type.startswith("tool_")] == ["tool_calls", "tool_result"]  # never executed


async def test_no_warning_within_the_limit() -> None:
    model, events = await run(Capabilities(max_tools=2), hi(tool_names=["a", "b"]), [Step(text="x")])
    assert len(model.requests[0].tools) == 2 and warnings(events) == []


async def test_response_format_only_where_supported() -> None:
    fmt = {"type": "json_object"}
    model, events = await run(Capabilities(), hi(response_format=fmt), [Step(text="{}")])
    assert model.requests[0].response_format == fmt and warnings(events) == []
    model, events = await run(Capabilities(response_format=False), hi(response_format=fmt, tool_names=["a"]),
                              [Step(calls=[("a", {})]), Step(text="{}")])
    assert all(r.response_format is None for r in model.requests)
    assert warnings(events) == ["RESPONSE_FORMAT_UNSUPPORTED"]


async def test_reasoning_effort_only_where_supported() -> None:
    caps = Capabilities(reasoning_control="reasoning_effort", reasoning_models=("think-",))
    model, _ = await run(caps, RunRequest(model="think-1", messages=[UserMessage(content="hi")],
                                          reasoning_effort="high"), [Step(text="x")])
    assert model.requests[0].reasoning_effort == "high"
    model, _ = await run(caps, hi(reasoning_effort="high"), [Step(text="x")])
    assert model.requests[0].reasoning_effort is None


async def test_model_family_overrides_apply() -> None:
    caps = Capabilities(families=(ModelFamily(prefixes=("tiny-",), overrides={"max_tools": 1}),))
    model, events = await run(caps, RunRequest(model="tiny-1", messages=[UserMessage(content="hi")],
                                               tool_names=["a", "b"]), [Step(text="x")])
    assert [t.name for t in model.requests[0].tools] == ["a"] and warnings(events) == ["TOOLS_LIMITED"]
    model, _ = await run(caps, hi(tool_names=["a", "b"]), [Step(text="x")])
    assert len(model.requests[0].tools) == 2


def test_select_tools_rule() -> None:
    specs = registry("a", "b", "c", "d", "e").specs()
    history = [AssistantMessage(parts=[ToolCallPart(id="1", name="e", arguments=""),
                                       ToolCallPart(id="2", name="c", arguments="")]),
               AssistantMessage(parts=[ToolCallPart(id="3", name="b", arguments="")])]
    assert used_tool_names(history) == ["b", "c", "e"]
    assert [s.name for s in select_tools(specs, history, 2)] == ["b", "c"]
    assert [s.name for s in select_tools(specs, history, 4)] == ["a", "b", "c", "e"]
    assert [s.name for s in select_tools(specs, [], 2)] == ["a", "b"]
    assert select_tools(specs, history, 9) == specs


def test_scripted_model_has_default_capabilities() -> None:
    assert ScriptedModel([]).capabilities == Capabilities()
    assert isinstance(ModelRequest(model="m", messages=[]).response_format, type(None))
