"""The loop's guardrails, with their defaults. Settings and the CLI validate against this model."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

MAX_CALL_TIMEOUT = 86_400  # seconds (a day): the longest model_call_timeout that may be set


class LoopLimits(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    max_iterations: int = Field(10, ge=1, le=100, description="model calls that may ask for tools in one run; "
                                "after that, one final call with tool_choice none")
    max_tool_only_iterations: int = Field(3, ge=1, le=100, description="consecutive calls that return only tool "
                                          "calls (no text) before a final call with tool_choice none")
    max_calls_per_turn: int = Field(6, ge=1, le=64, description="tool calls executed per model call; the rest "
                                    "get an error result")
    turn_output_chars: int = Field(60_000, ge=1_000, le=2_000_000, description="characters of tool output "
                                   "returned to the model per turn, all tools together")
    tool_output_chars: int = Field(20_000, ge=500, le=2_000_000, description="characters per tool result unless "
                                   "the tool sets its own limit")
    tool_timeout: float = Field(30.0, gt=0, le=3_600, description="seconds per tool call unless the tool sets "
                                "its own")
    model_call_timeout: float = Field(600.0, gt=0, le=MAX_CALL_TIMEOUT, description="seconds one model call may "
                                      "take from the request to the end of its answer, however slowly bytes arrive")
    max_parallel_tools: int = Field(4, ge=1, le=32, description="parallel-safe tools running at once")
