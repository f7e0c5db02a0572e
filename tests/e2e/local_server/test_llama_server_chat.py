"""Parley against the real llama-cpp-python server over loopback HTTP: streaming and whole answers, a forced
tool call, a tool round trip the server accepts, ``tool_choice: auto`` while streaming, and a cancel in the
middle of an answer. What the real server refuses (``content: null`` beside tool calls: 422) is a capability of
the ``llama-cpp-python`` preset, checked here against the server itself."""

from __future__ import annotations

import asyncio
import json

from orchestration.engine import NamedToolChoice
from orchestration.events import RunEvent
from orchestration.loop import RunLoop, RunRequest, RunResult
from orchestration.messages import UserMessage
from orchestration.providers.openai_chat import OpenAIChatAdapter
from orchestration.providers.presets import provider_from_preset
from tests.support.llama_server import MODEL_ALIAS, LlamaServer
from tools.builtin import calculator_tool
from tools.registry import ToolRegistry

MAX_TOKENS = 48  # answers stay short, so each test takes a second or two on 2 cores


def adapter(server: LlamaServer, **capabilities: object) -> OpenAIChatAdapter:
    config = provider_from_preset("llama-cpp-python", base_url=server.base_url)
    if capabilities:
        config = config.model_copy(update={"capabilities": config.capabilities.model_copy(update=capabilities)})
    return OpenAIChatAdapter(config)


def calculator() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register(calculator_tool())
    return registry


async def run(server: LlamaServer, prompt: str, *, tools: ToolRegistry | None = None, stream: bool = True,
              tool_choice: object = "auto", max_iterations: int | None = None, **capabilities: object
              ) -> tuple[RunResult, list[RunEvent]]:
    from orchestration.limits import LoopLimits

    events: list[RunEvent] = []
    chat = adapter(server, **capabilities)
    registry = tools or ToolRegistry()
    limits = LoopLimits(max_iterations=max_iterations) if max_iterations else None
    try:
        result = await RunLoop(chat, registry, events.append, limits=limits).run(RunRequest(
            model=MODEL_ALIAS, messages=[UserMessage(content=prompt)], tool_names=registry.names(),
            tool_choice=tool_choice, stream=stream, max_output_tokens=MAX_TOKENS, temperature=0.0))
    finally:
        await chat.aclose()
    return result, events


def errors(events: list[RunEvent]) -> list[str]:
    return [f"{e.code}: {e.message}" for e in events if e.type == "error"]


async def test_a_streamed_answer(llama_server: LlamaServer) -> None:
    result, events = await run(llama_server, "Say hello in one short sentence.")
    assert errors(events) == [] and result.finish_reason in ("stop", "length")
    deltas = [e for e in events if e.type == "content"]
    assert len(deltas) > 1  # it arrived in pieces
    assert result.answer.strip() and result.answer == "".join(e.content for e in deltas)


async def test_a_whole_answer_without_streaming(llama_server: LlamaServer) -> None:
    result, events = await run(llama_server, "Say hello in one short sentence.", stream=False)
    assert errors(events) == [] and result.finish_reason in ("stop", "length")
    assert result.answer.strip()


async def test_a_forced_tool_call_and_the_round_trip_the_server_accepts(llama_server: LlamaServer) -> None:
    result, events = await run(llama_server, "What is 6 times 7? Use the calculator.", tools=calculator(),
                               tool_choice=NamedToolChoice(name="calculate"), max_iterations=2)
    assert errors(events) == []
    calls = [e for e in events if e.type == "tool_calls"]
    assert calls and calls[0].calls[0].name == "calculate"
    assert any(e.type == "tool_result" for e in events)
    finished = [e for e in events if e.type == "model_call_finished"]
    assert len(finished) >= 2  # the follow-up request with the tool result was answered, not refused
    assert result.finish_reason != "error"


async def test_the_real_server_refuses_null_content_beside_tool_calls(llama_server: LlamaServer) -> None:
    """Why the preset has ``null_assistant_content=False``: what the specification allows, this server refuses,
    and with a 500, which Parley words as the refusal it is (not retried, no "try again later")."""
    result, events = await run(llama_server, "What is 6 times 7? Use the calculator.", tools=calculator(),
                               tool_choice=NamedToolChoice(name="calculate"), max_iterations=2,
                               null_assistant_content=True)
    assert result.finish_reason == "error"
    [message] = errors(events)
    assert message.startswith("server_error: llama-cpp-python server rejected the request (500): its message says")
    assert "ChatCompletionRequestAssistantMessage" in message and "Input should be a valid string" in message
    assert [e.attempts for e in events if e.type == "model_exchange"][-1] == 1


async def test_required_with_one_tool_is_sent_by_name_and_obeyed(llama_server: LlamaServer) -> None:
    _result, events = await run(llama_server, "What is 6 times 7?", tools=calculator(), tool_choice="required",
                               max_iterations=1)
    assert errors(events) == []
    assert [c.name for e in events if e.type == "tool_calls" for c in e.calls][:1] == ["calculate"]


async def test_the_real_server_ignores_required(llama_server: LlamaServer) -> None:
    """Why the preset has ``required_tool_choice=False``: sent as ``required``, no tool is ever called."""
    _result, events = await run(llama_server, "What is 6 times 7?", tools=calculator(), tool_choice="required",
                               max_iterations=1, required_tool_choice=True)
    request = json.loads(next(e for e in events if e.type == "model_exchange").request_body)
    assert request["tool_choice"] == "required"
    assert not any(e.type == "tool_calls" for e in events)


async def test_tool_choice_auto_while_streaming(llama_server: LlamaServer) -> None:
    result, events = await run(llama_server, "What is 12 plus 30?", tools=calculator(), max_iterations=2)
    assert errors(events) == []
    assert result.finish_reason in ("stop", "length", "max_iterations")
    assert result.answer.strip() or any(e.type == "tool_calls" for e in events)
    request = json.loads(next(e for e in events if e.type == "model_exchange").request_body)
    assert request["tool_choice"] == "auto" and request["stream"] is True


async def test_cancel_in_the_middle_of_an_answer(llama_server: LlamaServer) -> None:
    events: list[RunEvent] = []
    first_text = asyncio.Event()

    def emit(event: RunEvent) -> None:
        events.append(event)
        if event.type == "content":
            first_text.set()

    chat = adapter(llama_server)
    loop = RunLoop(chat, ToolRegistry(), emit)
    task = asyncio.ensure_future(loop.run(RunRequest(
        model=MODEL_ALIAS, messages=[UserMessage(content="Write a long story about a lighthouse keeper.")],
        max_output_tokens=400)))
    await asyncio.wait_for(first_text.wait(), 60)
    task.cancel()
    result = await task
    await chat.aclose()
    assert result.finish_reason == "cancelled"
    assert events[-1].type == "done" and events[-1].finish_reason == "cancelled"
    assert result.answer  # the partial answer is kept
    # the server is still well and answers the next request
    again, later = await run(llama_server, "Say hi.")
    assert errors(later) == [] and again.answer.strip()
