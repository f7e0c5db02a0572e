"""Saved history back into messages: the next request sees the conversation as it was."""

from __future__ import annotations

import asyncio

from app.storage.replay import MISSING_TOOL_RESULT, conversation_messages
from app.storage.run_recorder import RunRecorder
from orchestration.events import Done, EventFactory, RunStarted, ToolCallInfo, ToolCalls
from orchestration.loop import RunLoop, RunRequest
from orchestration.messages import (
    AssistantMessage,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolResultMessage,
    UserMessage,
)
from orchestration.scripted import ScriptedModel, Step
from tools import default_registry


def test_a_recorded_tool_run_replays_as_the_messages_the_loop_produced(history):
    cid = history.create_conversation("math", system_prompt="Answer briefly.")
    model = ScriptedModel([
        Step(reasoning="tool time", text="Computing. ", calls=[("calculate", {"expression": "6*7"})]),
        Step(text="It is 42."),
    ])
    recorder = RunRecorder(history, cid)
    ids = recorder.begin("What is 6*7?")
    prompt = [SystemMessage(content="Answer briefly."), UserMessage(content="What is 6*7?")]
    result = asyncio.run(RunLoop(model, default_registry(), recorder).run(
        RunRequest(model="m", messages=prompt, tool_names=["calculate"], run_id=ids.run_id)))
    replayed = conversation_messages(history, cid)
    expected = [*prompt, *result.new_messages]
    assert [m.role for m in replayed] == [m.role for m in expected]
    first = replayed[2]
    assert isinstance(first, AssistantMessage)
    assert first.parts == [ReasoningPart(text="tool time"), TextPart(text="Computing. "),
                           ToolCallPart(id="call_0", name="calculate", arguments='{"expression": "6*7"}')]
    assert replayed[3] == ToolResultMessage(call_id="call_0", name="calculate", content="6*7 = 42", status="ok")
    assert replayed[4].text == "It is 42." == result.new_messages[-1].text


def test_a_call_without_a_result_gets_an_error_result(history):
    cid = history.create_conversation("cut off")
    recorder = RunRecorder(history, cid)
    ids = recorder.begin("look it up")
    events = EventFactory(ids.run_id)
    recorder(events.make(RunStarted, provider="p", model="m"))
    events.iteration = 1
    recorder(events.make(ToolCalls, calls=[ToolCallInfo(id="c9", name="get_current_time", arguments="{}")]))
    recorder(events.make(Done, finish_reason="cancelled"))
    _, assistant, result = conversation_messages(history, cid)
    assert assistant.tool_calls[0].id == "c9"
    assert result == ToolResultMessage(call_id="c9", name="get_current_time", content=MISSING_TOOL_RESULT,
                                       status="error")


def test_only_the_current_branch_is_replayed(history):
    cid = history.create_conversation("branches")
    first = history.add_message(cid, "user", "version one")
    history.branch_from(cid, first)
    history.add_message(cid, "user", "version two")
    assert conversation_messages(history, cid) == [UserMessage(content="version two")]
    assert conversation_messages(history, cid, leaf_id=first) == [UserMessage(content="version one")]
