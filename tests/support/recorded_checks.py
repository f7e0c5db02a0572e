"""What each wire format's recorded streams must come out as, read from ../shared's EXPECTED.json.

One ``check_*`` per wire format: EXPECTED.json describes each format's recordings in that format's own words
(Anthropic's content blocks, Gemini's usage metadata, ...), so the comparison is per format; everything else
about running a recording (whole, byte by byte, re-chunked, over HTTP, cut off) is shared by
tests/orchestration/providers/test_recorded_streams.py.
"""

from __future__ import annotations

from typing import Any

from orchestration.engine import ResponseComplete, ResponseStarted, ToolCallReady, UsageReport
from orchestration.errors import StreamError
from orchestration.messages import ReasoningPart, TextPart, ToolCallPart
from tests.support import provider_fixtures as pf
from tests.support.adapter_runs import Outcome


def expected(key: str) -> dict[str, Any]:
    return pf.entry(key)["expected"]


# --- OpenAI Chat Completions ------------------------------------------------------------------------

OPENAI_FINISH = {"tool_calls": "tool_calls", "stop": "stop", "length": "length"}


def openai_expected_reasoning(exp: dict[str, Any]) -> str:
    return exp["reasoning_content"] + exp["reasoning"] + exp["mistral_thinking"]


def check_openai_chat(key: str, outcome: Outcome) -> None:
    exp = expected(key)
    events = outcome.events
    if exp["errors"]:
        _check_openai_stream_error(exp, outcome)
        return
    assert outcome.error is None, f"unexpected {outcome.error!r}"

    assert isinstance(events[0], ResponseStarted)
    assert (events[0].response_id, events[0].model) == (exp["id"], exp["model"])
    complete = events[-1]
    assert isinstance(complete, ResponseComplete)
    assert sum(isinstance(e, ResponseComplete) for e in events) == 1
    msg = complete.message
    assert msg.response_id == exp["id"]
    assert msg.model == exp["model"]
    assert msg.text == exp["text"]
    assert msg.reasoning == openai_expected_reasoning(exp)
    want_calls = [(c["id"], c["name"], c["arguments"]) for c in exp["tool_calls"]]
    assert [(c.id, c.name, c.arguments) for c in msg.tool_calls] == want_calls
    assert complete.finish_reason == OPENAI_FINISH[exp["finish_reason"]]

    usage = exp["usage"]
    if usage is None:
        assert complete.usage is None
        assert not any(isinstance(e, UsageReport) for e in events)
    else:
        got = complete.usage
        assert got is not None
        assert got.raw == usage
        assert got.input_tokens == usage["prompt_tokens"]
        assert got.output_tokens == usage["completion_tokens"]
        details = usage.get("completion_tokens_details") or {}
        assert got.reasoning_tokens == details.get("reasoning_tokens", 0)
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens") or usage.get(
            "prompt_cache_hit_tokens", 0)
        assert got.cached_tokens == cached
        reports = [e.usage for e in events if isinstance(e, UsageReport)]
        assert reports and reports[-1] == got

    details = [d for p in msg.parts if isinstance(p, ReasoningPart) for d in p.details]
    assert details == exp["reasoning_details_merged"]

    # The live events add up to the final message, and every call was announced exactly once, in order.
    assert outcome.text == msg.text
    assert outcome.reasoning == msg.reasoning
    announced = [e.call for e in events if isinstance(e, ToolCallReady)]
    assert [(c.id, c.name, c.arguments) for c in announced] == want_calls
    for call in announced:
        call.parsed_arguments()  # every recorded call carries valid JSON (or nothing)


def _check_openai_stream_error(exp: dict[str, Any], outcome: Outcome) -> None:
    error = outcome.error
    assert isinstance(error, StreamError), f"expected a StreamError, got {error!r}"
    frame = exp["errors"][0]["error"]
    assert frame["message"] in error.message
    status = frame.get("status_code") or (frame["code"] if isinstance(frame.get("code"), int) else None)
    assert error.status == status
    assert error.partial is not None
    assert error.partial.text == exp["text"]
    assert error.partial.reasoning == openai_expected_reasoning(exp)
    assert outcome.text == exp["text"]
    assert outcome.reasoning == openai_expected_reasoning(exp)
    assert not any(isinstance(e, ResponseComplete) for e in outcome.events)


# --- OpenAI Responses ---------------------------------------------------------------------------------

def responses_expected_reasoning(exp: dict[str, Any]) -> str:
    return "\n\n".join(exp["reasoning_summary_parts"]) + exp["reasoning_text"]


def check_openai_responses(key: str, outcome: Outcome) -> None:
    exp = expected(key)
    started = outcome.events[0]
    assert isinstance(started, ResponseStarted)
    assert (started.response_id, started.model) == (exp["response_id"], exp["model"])
    if exp["errors"]:
        error = outcome.error
        assert isinstance(error, StreamError)
        assert exp["errors"][0]["error"]["message"] in error.message
        assert error.provider_code == exp["errors"][0]["error"]["code"]
        assert "Check your plan and billing." in error.message
        assert error.partial is not None and error.partial.text == exp["text"]
        assert not any(isinstance(e, ResponseComplete) for e in outcome.events)
        return
    done = outcome.complete
    message = done.message
    assert (message.response_id, message.model) == (exp["response_id"], exp["model"])
    assert message.text == exp["text"]
    assert message.reasoning == responses_expected_reasoning(exp)
    want = [(c["call_id"], c["name"], c["arguments"], c["id"]) for c in exp["function_calls"]]
    assert [(c.id, c.name, c.arguments, c.opaque["item_id"]) for c in message.tool_calls] == want
    assert done.finish_reason == ("tool_calls" if want else "stop")
    assert done.native_finish_reason == exp["status"]
    reasoning_items = [p for p in message.parts if isinstance(p, ReasoningPart)]
    kinds = [t for t in exp["output_item_types"] if t == "reasoning"]
    assert len(reasoning_items) == len(kinds)
    for part in reasoning_items:  # the whole item is kept to be sent back
        assert part.provider_format == "openai-responses" and part.details[0]["type"] == "reasoning"
    store = message.provider_data["openai-responses"]["store"]
    assert store is (key == "openai/responses-text-gpt-4o.sse" or store)  # as the server reported it
    usage = exp["usage"]
    assert done.usage is not None and done.usage.raw == usage
    assert (done.usage.input_tokens, done.usage.output_tokens) == (usage["input_tokens"], usage["output_tokens"])
    assert done.usage.reasoning_tokens == usage["output_tokens_details"]["reasoning_tokens"]
    assert done.usage.cached_tokens == usage["input_tokens_details"]["cached_tokens"]
    assert [e.usage for e in outcome.events if isinstance(e, UsageReport)][-1] == done.usage
    assert outcome.text == message.text and outcome.reasoning == message.reasoning
    assert outcome.announced == [(c.id, c.name, c.arguments) for c in message.tool_calls]


# --- Anthropic Messages -------------------------------------------------------------------------------

ANTHROPIC_FINISH = {"end_turn": "stop", "tool_use": "tool_calls"}


def anthropic_parts_as_blocks(parts: list[Any]) -> list[dict[str, Any]]:
    """Our message parts in the shape of EXPECTED.json's ``content`` blocks."""
    blocks: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, TextPart):
            blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, ReasoningPart) and part.encrypted is not None:
            blocks.append({"type": "redacted_thinking", "data": part.encrypted})
        elif isinstance(part, ReasoningPart):
            blocks.append({"type": "thinking", "thinking": part.text, "signature": part.signature})
        elif isinstance(part, ToolCallPart):
            blocks.append({"type": "tool_use", "id": part.id, "name": part.name, "input_json": part.arguments,
                           "input": part.parsed_arguments()})
    return blocks


def check_anthropic(key: str, outcome: Outcome) -> None:
    exp = expected(key)
    done = outcome.complete
    started = outcome.events[0]
    assert isinstance(started, ResponseStarted)
    assert (started.response_id, started.model) == (exp["id"], exp["model"])
    message = done.message
    assert (message.response_id, message.model) == (exp["id"], exp["model"])
    assert anthropic_parts_as_blocks(message.parts) == exp["content"]
    assert all(p.provider_format == "anthropic" for p in message.parts if isinstance(p, ReasoningPart))
    assert message.text == exp["text"]
    assert message.reasoning == exp["thinking"]
    assert done.finish_reason == ANTHROPIC_FINISH[exp["stop_reason"]]
    assert done.native_finish_reason == exp["stop_reason"]
    usage = exp["usage_merged"]
    assert done.usage is not None and done.usage.raw == usage
    cached = usage.get("cache_read_input_tokens") or 0
    assert done.usage.input_tokens == usage["input_tokens"] + cached + (usage.get("cache_creation_input_tokens")
                                                                        or 0)
    assert (done.usage.output_tokens, done.usage.cached_tokens) == (usage["output_tokens"], cached)
    reports = [e.usage for e in outcome.events if isinstance(e, UsageReport)]
    assert reports[-1] == done.usage
    # the live events add up to the final message; each call announced once, in order
    assert outcome.text == message.text
    assert outcome.reasoning == message.reasoning
    assert outcome.announced == [(c.id, c.name, c.arguments) for c in message.tool_calls]


# --- Gemini ---------------------------------------------------------------------------------------------

GEMINI_FINISH = {"STOP": "stop"}


def check_gemini(key: str, outcome: Outcome) -> None:
    exp = expected(key)
    done = outcome.complete
    started = outcome.events[0]
    assert isinstance(started, ResponseStarted)
    assert (started.response_id, started.model) == (exp["response_id"], exp["model_version"])
    message = done.message
    assert message.text == exp["text"]
    assert message.reasoning == exp["thought_text"]
    calls = message.tool_calls
    assert len(calls) == len(exp["function_calls"])
    for call, want in zip(calls, exp["function_calls"], strict=True):
        assert call.name == want["name"]
        assert call.parsed_arguments() == want["args"]
        if want["id"] is None:
            assert call.id.startswith("call_") and "gemini_id" not in call.opaque  # assigned, never sent back
        else:
            assert call.id == want["id"] == call.opaque["gemini_id"]
    signatures = [{"on_part": "functionCall", "length": len(c.opaque["thought_signature"])}
                  for c in calls if "thought_signature" in c.opaque]
    text_signature = (message.provider_data.get("gemini") or {}).get("text_signature")
    if text_signature:
        signatures.insert(0, {"on_part": "text", "length": len(text_signature)})
    assert signatures == exp["thought_signatures"]
    assert done.native_finish_reason == exp["finish_reason"]
    assert done.finish_reason == ("tool_calls" if calls else GEMINI_FINISH[exp["finish_reason"]])
    usage = exp["usage_metadata"]
    assert done.usage is not None and done.usage.raw == usage
    assert done.usage.input_tokens == usage["promptTokenCount"]
    assert done.usage.reasoning_tokens == usage.get("thoughtsTokenCount", 0)
    assert done.usage.output_tokens == usage["candidatesTokenCount"] + usage.get("thoughtsTokenCount", 0)
    assert [e.usage for e in outcome.events if isinstance(e, UsageReport)][-1] == done.usage
    assert outcome.text == message.text and outcome.reasoning == message.reasoning
    assert outcome.announced == [(c.id, c.name, c.arguments) for c in calls]


# --- Ollama native ----------------------------------------------------------------------------------------

def check_ollama(key: str, outcome: Outcome) -> None:
    exp = expected(key)
    done = outcome.complete
    started = outcome.events[0]
    assert isinstance(started, ResponseStarted) and started.model == exp["model"]
    assert done.message.text == exp["text"] and done.message.reasoning == exp["thinking"]
    assert done.message.tool_calls == [] == exp["tool_calls"]
    assert done.native_finish_reason == exp["done_reason"] and done.finish_reason == "stop"
    assert done.usage is not None
    assert (done.usage.input_tokens, done.usage.output_tokens) == (exp["prompt_eval_count"], exp["eval_count"])
    assert outcome.text == done.message.text


# --- Cohere v2 --------------------------------------------------------------------------------------------

def check_cohere(key: str, outcome: Outcome) -> None:
    exp = expected(key)
    done = outcome.complete
    started = outcome.events[0]
    assert isinstance(started, ResponseStarted) and started.response_id == exp["id"]
    message = done.message
    assert message.text == exp["text"]
    thinking = "".join(p.text for p in message.parts if isinstance(p, ReasoningPart) and p.provider_format == "cohere")
    plan = "".join(p.text for p in message.parts
                   if isinstance(p, ReasoningPart) and p.provider_format == "cohere-tool-plan")
    assert (thinking, plan) == (exp["thinking"], exp["tool_plan"])
    assert message.reasoning == exp["thinking"] + exp["tool_plan"]
    want = [(c["id"], c["name"], c["arguments"]) for c in exp["tool_calls"]]
    assert [(c.id, c.name, c.arguments) for c in message.tool_calls] == want
    assert [c.parsed_arguments() for c in message.tool_calls] == [c["arguments_parsed"] for c in exp["tool_calls"]]
    assert done.native_finish_reason == exp["finish_reason"]
    assert done.finish_reason == {"COMPLETE": "stop", "TOOL_CALL": "tool_calls"}[exp["finish_reason"]]
    usage = exp["usage"]
    assert done.usage is not None and done.usage.raw == usage
    assert done.usage.input_tokens == usage["tokens"]["input_tokens"]
    assert done.usage.cached_tokens == usage.get("cached_tokens", 0)
    assert [e.usage for e in outcome.events if isinstance(e, UsageReport)][-1] == done.usage
    assert outcome.text == message.text and outcome.reasoning == message.reasoning
    assert outcome.announced == want
