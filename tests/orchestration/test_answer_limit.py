"""One answer is at most MAX_ANSWER_CHARS (2,000,000) characters: past it the call stops with
``response_too_large`` and the answer up to the limit is kept, exactly as it was shown."""

from __future__ import annotations

import asyncio

from pydantic import BaseModel

from orchestration.events import RunEvent
from orchestration.limits import MAX_ANSWER_CHARS
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import AssistantMessage, UserMessage
from orchestration.scripted import ScriptedModel, Step
from orchestration.tool_api import ToolContext
from tools.registry import Tool, ToolRegistry


class EchoArgs(BaseModel):
    text: str = ""


def run(step: Step, calls: list[str] | None = None) -> tuple[list[RunEvent], object]:
    async def echo(args: EchoArgs, ctx: ToolContext) -> str:
        if calls is not None:
            calls.append(args.text)
        return "ok"

    model = ScriptedModel([step])
    events: list[RunEvent] = []
    loop = RunLoop(model, ToolRegistry([Tool("echo", "Echo", EchoArgs, echo)]), events.append)
    result = asyncio.run(loop.run(RunRequest(model="m", messages=[UserMessage(content="x")], tool_names=["echo"])))
    model.assert_exhausted()
    return events, result


def test_the_limit_is_two_million_characters() -> None:
    assert MAX_ANSWER_CHARS == 2_000_000


def test_text_past_the_limit_stops_the_call_and_keeps_exactly_the_limit() -> None:
    piece = "a" * 300_000
    events, result = run(Step(reasoning="r" * 100_000, text=[piece] * 7))  # 2,200,000 characters in all
    (error,) = [e for e in events if e.type == "error"]
    assert error.code == "response_too_large"
    assert error.message.startswith("The answer from scripted passed 2,000,000 characters, the limit for one answer")
    shown = "".join(e.content for e in events if e.type == "content")
    reasoning = "".join(e.content for e in events if e.type == "reasoning")
    assert len(shown) + len(reasoning) == MAX_ANSWER_CHARS
    (partial,) = result.new_messages
    assert isinstance(partial, AssistantMessage) and partial.text == shown and partial.reasoning == reasoning
    assert result.finish_reason == "error" and events[-1].type == "done"


def test_huge_tool_arguments_are_not_run() -> None:
    calls: list[str] = []
    events, result = run(Step(text="calling", calls=[("echo", {"text": "x" * MAX_ANSWER_CHARS})]), calls)
    assert [e.code for e in events if e.type == "error"] == ["response_too_large"]
    assert calls == [] and not [e for e in events if e.type in ("tool_calls", "tool_result")]
    assert result.new_messages[0].text == "calling"
