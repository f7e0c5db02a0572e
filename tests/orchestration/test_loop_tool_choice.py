"""A forced tool choice (a tool name or ``required``) applies to the first model call of a run only."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import BaseModel

from orchestration.engine import NamedToolChoice, ToolChoice
from orchestration.events import RunEvent
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import UserMessage
from orchestration.providers.config import ProviderConfig
from orchestration.providers.openai_chat import OpenAIChatAdapter
from orchestration.scripted import ScriptedModel, Step
from orchestration.tool_api import ToolContext
from tests.support.loopback import LoopbackServer
from tests.support.openai_wire import stream_response
from tools.registry import Tool, ToolRegistry


class AddArgs(BaseModel):
    a: float
    b: float


async def _add(args: AddArgs, ctx: ToolContext) -> str:
    return str(args.a + args.b)


REGISTRY = ToolRegistry([Tool("add", "Add two numbers", AddArgs, _add)])


def _run(adapter: object, choice: ToolChoice) -> tuple[list[RunEvent], str]:
    events: list[RunEvent] = []
    loop = RunLoop(adapter, REGISTRY, events.append)  # type: ignore[arg-type]
    request = RunRequest(model="m", messages=[UserMessage(content="add")], tool_names=["add"], tool_choice=choice)
    result = asyncio.run(loop.run(request))
    return events, result.finish_reason


@pytest.mark.parametrize("choice", ["required", NamedToolChoice(name="add")])
def test_forced_choice_is_released_after_the_first_call(choice: ToolChoice) -> None:
    model = ScriptedModel([Step(calls=[("add", {"a": 1, "b": 2})]), Step(text="3")])
    events, finish = _run(model, choice)
    model.assert_exhausted()
    assert [r.tool_choice for r in model.requests] == [choice, "auto"]
    assert [e.tool_choice for e in events if e.type == "model_call_started"] == [
        "required" if choice == "required" else "tool:add", "auto"]
    assert finish == "stop"


def test_none_and_auto_stay_as_asked() -> None:
    model = ScriptedModel([Step(calls=[("add", {"a": 1, "b": 2})]), Step(text="3")])
    _run(model, "auto")
    assert [r.tool_choice for r in model.requests] == ["auto", "auto"]


def test_second_request_on_the_wire_says_auto() -> None:
    with LoopbackServer() as server:
        server.add("POST", "/v1/chat/completions",
                   stream_response(calls=[("c1", "add", {"a": 1, "b": 2})]), stream_response("It is 3."))
        adapter = OpenAIChatAdapter(ProviderConfig(id="p", base_url=server.url + "/v1", max_attempts=1))
        _, finish = _run(adapter, NamedToolChoice(name="add"))
        sent = [r.json["tool_choice"] for r in server.requests]
    assert sent == [{"type": "function", "function": {"name": "add"}}, "auto"]
    assert finish == "stop"
    assert json.loads(server.requests[1].body)["messages"][-1]["role"] == "tool"
