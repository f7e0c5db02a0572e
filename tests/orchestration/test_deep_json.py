"""JSON nested ~1,100 deep where the core reads it: tool-call arguments, the inspector's trace, stored events and
bodies being redacted. Each is a clear result or plain text, never a RecursionError."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from orchestration.bounded_json import JSONTooDeepError
from orchestration.events import ToolCallInfo, ToolCalls, parse_event
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import ToolCallPart, UserMessage
from orchestration.redaction import redact_body
from orchestration.run_trace import RunTrace
from orchestration.scripted import ScriptedModel, Step
from orchestration.tool_api import ToolContext
from tools.registry import Tool, ToolRegistry

DEEP = "[" * 1_100 + "]" * 1_100
DEEP_ARGS = '{"a": ' + DEEP + "}"


class AddArgs(BaseModel):
    a: float = 0
    b: float = 0


async def _add(args: AddArgs, ctx: ToolContext) -> str:
    return str(args.a + args.b)


def test_deep_tool_arguments_are_an_error_result_the_model_sees() -> None:
    model = ScriptedModel([Step(calls=[("add", DEEP_ARGS)]), Step(text="sorry")])
    events: list = []
    loop = RunLoop(model, ToolRegistry([Tool("add", "Add", AddArgs, _add)]), events.append)
    result = asyncio.run(loop.run(RunRequest(model="m", messages=[UserMessage(content="x")], tool_names=["add"])))
    model.assert_exhausted()
    (tool_result,) = [e for e in events if e.type == "tool_result"]
    assert tool_result.status == "error"
    assert tool_result.result.startswith("The argument object for add is nested more than 100 levels deep, over "
                                         "the limit of 100 for JSON.")
    assert result.finish_reason == "stop" and result.answer == "sorry"
    assert model.requests[1].messages[-1].content == tool_result.result
    assert [w.code for w in events if w.type == "warning"] == []  # never "repaired"


def test_parsed_arguments_raise_the_typed_error() -> None:
    with pytest.raises(JSONTooDeepError, match="the argument object for add is nested more than 100"):
        ToolCallPart(id="c", name="add", arguments=DEEP_ARGS).parsed_arguments()


def test_the_inspector_shows_deep_arguments_as_text() -> None:
    trace = RunTrace()
    event = ToolCalls(run_id="r", seq=1, ts=0, iteration=1,
                      calls=[ToolCallInfo(id="c1", name="add", arguments=DEEP_ARGS)])
    trace.apply(event)
    assert '"arguments": "{\\"a\\": [[[' in trace.tool_json(trace.calls[0].tools[0])


def test_a_deep_stored_event_is_a_typed_error() -> None:
    with pytest.raises(JSONTooDeepError, match="a run event is nested"):
        parse_event('{"type": "content", "content": ' + DEEP + "}")


def test_a_deep_body_is_redacted_as_text() -> None:
    assert redact_body(DEEP + " Bearer abcdefgh12345678") == DEEP + " Bearer [redacted]"
