"""Executing the tool calls of one model turn, inside the loop's guardrails.

Clamps the number of calls, runs identical calls once, validates arguments (with one repair attempt for
malformed JSON), asks for approval where a tool needs it, runs parallel-safe tools concurrently and the others
in order, enforces timeouts and output budgets, and turns every failure into a result the model can read.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from orchestration.bounded_json import JSONLimitError, loads_bounded
from orchestration.events import (
    EventFactory,
    RunEvent,
    RunWarning,
    ToolExecuting,
    ToolResult,
    ToolStatus,
)
from orchestration.limits import LoopLimits
from orchestration.messages import ToolCallPart, ToolResultMessage
from orchestration.tool_api import RunnableTool, ToolArgumentsError, ToolContext, ToolOutput, ToolSet
from orchestration.tool_outcome import normalized_key as call_key
from orchestration.tool_outcome import not_run_text

Decision = Literal["allow", "deny"]


@dataclass(frozen=True)
class ApprovalRequest:
    call_id: str
    name: str
    arguments: dict[str, Any]
    preview: str | None = None  # what the call would do (a write's diff), from the tool's ``approval_preview``


Approver = Callable[[list[ApprovalRequest]], Awaitable[dict[str, Decision]]]
Emit = Callable[[RunEvent], None]

DENIED_BY_USER = "denied by the user"
PREVIEW_TIMEOUT_S = 10.0  # a tool's approval preview; past it the question shows the arguments only


@dataclass
class _Prepared:
    call: ToolCallPart
    tool: RunnableTool | None = None
    arguments: Any = None
    raw_arguments: dict[str, Any] = field(default_factory=dict)
    early: tuple[str, ToolStatus] | None = None  # a result decided before running (error or denial)
    duplicates: list[ToolCallPart] = field(default_factory=list)


def normalized_key(call: ToolCallPart) -> tuple[str, str]:
    return call_key(call.name, call.arguments)


def truncate(text: str, limit: int) -> tuple[str, bool]:
    if len(text) <= limit:
        return text, False
    note = f"\n[truncated: showing {limit} of {len(text)} characters]"
    return text[:limit] + note, True


class ToolTurn:
    def __init__(self, tools: ToolSet, limits: LoopLimits, events: EventFactory, emit: Emit,
                 approver: Approver | None, run_id: str, conversation_id: str | None) -> None:
        self.tools = tools
        self.limits = limits
        self.events = events
        self.emit = emit
        self.approver = approver
        self.run_id = run_id
        self.conversation_id = conversation_id
        self._budget_left = limits.turn_output_chars
        self._results: dict[str, ToolResultMessage] = {}

    def _warn(self, code: str, message: str) -> None:
        self.emit(self.events.make(RunWarning, code=code, message=message))

    async def execute(self, calls: list[ToolCallPart], offered: list[str]) -> list[ToolResultMessage]:
        self.offered = offered
        limit = self.limits.max_calls_per_turn
        kept, dropped = calls[:limit], calls[limit:]
        if dropped:
            self._warn("TOOL_CLAMP", f"The model asked for {len(calls)} tool calls in one turn; only the first "
                       f"{limit} were run (limit: {limit} per turn).")
        primaries: dict[tuple[str, str], _Prepared] = {}
        order: list[_Prepared] = []
        for call in kept:
            key = normalized_key(call)
            if key in primaries:
                primaries[key].duplicates.append(call)
                continue
            prepared = self._prepare(call)
            primaries[key] = prepared
            order.append(prepared)
        await self._approve(order)
        await self._run_all(order)
        for call in dropped:  # after the others, so their results arrive in the order the calls were made
            tool = self.tools.get(call.name) if call.name in offered else None
            self._finish(call, tool, not_run_text(limit), "error", 0)
        return [self._results[c.id] for c in calls]

    # --- preparation --------------------------------------------------------------------------------
    def _prepare(self, call: ToolCallPart) -> _Prepared:
        prepared = _Prepared(call=call)
        tool = self.tools.get(call.name) if call.name in self.offered else None
        if tool is None:
            available = ", ".join(self.offered) or "none"
            prepared.early = (f"Unknown tool {call.name!r}. Available tools: {available}.", "error")
            return prepared
        prepared.tool = tool
        raw = self._parse_arguments(call)
        if isinstance(raw, str):
            prepared.early = (raw, "error")
            return prepared
        prepared.raw_arguments = raw
        try:
            prepared.arguments = tool.validate(raw)
        except ToolArgumentsError as exc:
            schema = json.dumps(tool.spec().parameters, separators=(",", ":"))
            prepared.early = (f"Invalid arguments for {call.name}: {exc}. Expected parameters: {schema}", "error")
        return prepared

    def _parse_arguments(self, call: ToolCallPart) -> dict[str, Any] | str:
        text = call.arguments
        if not text.strip() or text.strip() == "null":
            return {}
        try:
            value = loads_bounded(text, what=f"The argument object for {call.name}")
        except JSONLimitError as exc:  # never repaired: the repair would recurse as deep
            return f"{exc} Send a JSON object that matches the tool's parameters."
        except json.JSONDecodeError as exc:
            import json_repair  # only for arguments that are not JSON (about 1 MB): loaded the first time

            repaired = json_repair.loads(text)
            if isinstance(repaired, dict) and repaired:
                self._warn("ARGUMENTS_REPAIRED", f"The arguments for {call.name} were not valid JSON ({exc.msg}); "
                           "they were repaired once before running the tool.")
                return repaired
            return (f"The arguments for {call.name} are not valid JSON ({exc.msg} at position {exc.pos}). "
                    "Send a JSON object that matches the tool's parameters.")
        except ValueError as exc:  # valid JSON that Python will not convert (an integer of over 4,300 digits)
            return (f"The arguments for {call.name} could not be read ({exc}). "
                    "Send a JSON object that matches the tool's parameters.")
        if not isinstance(value, dict):
            return f"The arguments for {call.name} must be a JSON object, not {type(value).__name__}."
        return value

    async def _approve(self, order: list[_Prepared]) -> None:
        asking = [p for p in order if p.early is None and p.tool is not None and p.tool.needs_approval]
        if not asking:
            return
        if self.approver is None:
            for p in asking:
                p.early = (f"Not run: {p.call.name} needs the user's approval and this run cannot ask for it.",
                           "denied")
            return
        previews = await asyncio.gather(*(self._preview(p) for p in asking))
        decisions = await self.approver(
            [ApprovalRequest(p.call.id, p.call.name, p.raw_arguments, preview)
             for p, preview in zip(asking, previews, strict=True)])
        for p in asking:
            if decisions.get(p.call.id) != "allow":
                p.early = (DENIED_BY_USER, "denied")

    async def _preview(self, prepared: _Prepared) -> str | None:
        """The tool's own account of the call for the user, if it gives one (optional: not in ``RunnableTool``)."""
        preview = getattr(prepared.tool, "approval_preview", None)
        if preview is None:
            return None
        try:
            return await asyncio.wait_for(preview(prepared.arguments), PREVIEW_TIMEOUT_S)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a preview that fails must not stop the question: the arguments are shown
            return f"(no preview: {type(exc).__name__}: {exc})"

    # --- running ------------------------------------------------------------------------------------
    async def _run_all(self, order: list[_Prepared]) -> None:
        segment: list[_Prepared] = []
        for prepared in order:
            if prepared.early is not None:
                self._finish(prepared.call, prepared.tool, prepared.early[0], prepared.early[1], 0,
                             prepared.duplicates)
                continue
            assert prepared.tool is not None
            if prepared.tool.parallel_safe:
                segment.append(prepared)
                continue
            await self._run_parallel(segment)
            segment = []
            await self._run_one(prepared)
        await self._run_parallel(segment)

    async def _run_parallel(self, batch: list[_Prepared]) -> None:
        if not batch:
            return
        if len(batch) == 1:
            await self._run_one(batch[0])
            return
        gate = asyncio.Semaphore(self.limits.max_parallel_tools)

        async def gated(p: _Prepared) -> None:
            async with gate:
                await self._run_one(p)

        async with asyncio.TaskGroup() as group:
            for p in batch:
                group.create_task(gated(p))

    async def _run_one(self, prepared: _Prepared) -> None:
        tool, call = prepared.tool, prepared.call
        assert tool is not None
        self.emit(self.events.make(ToolExecuting, id=call.id, name=call.name, category=tool.category,
                                   visibility=tool.visibility))
        timeout = tool.timeout or self.limits.tool_timeout
        context = ToolContext(run_id=self.run_id, call_id=call.id, conversation_id=self.conversation_id)
        started = time.monotonic()
        data: Any = None
        status: ToolStatus
        try:
            async with asyncio.timeout(timeout):
                output = await tool.invoke(prepared.arguments, context)
        except TimeoutError:
            text, status = f"{call.name} did not finish within {timeout:g} s and was stopped.", "timeout"
        except ToolArgumentsError as exc:
            text, status = f"Invalid arguments for {call.name}: {exc}", "error"
        except Exception as exc:  # a tool's failure is a result for the model, not a crash of the run
            text, status = f"{call.name} failed: {type(exc).__name__}: {exc}", "error"
        else:
            if isinstance(output, ToolOutput):
                text, data = output.text, output.data
                status = "error" if output.is_error else "ok"
            else:
                text, status = str(output), "ok"
        duration = int((time.monotonic() - started) * 1000)
        self._finish(call, tool, text, status, duration, prepared.duplicates, data)

    def _finish(self, call: ToolCallPart, tool: RunnableTool | None, text: str, status: ToolStatus,
                duration_ms: int, duplicates: list[ToolCallPart] | None = None, data: Any = None) -> None:
        per_tool = tool.max_output_chars if tool and tool.max_output_chars else self.limits.tool_output_chars
        limit = max(0, min(per_tool, self._budget_left))
        shown = min(len(text), limit)
        text, truncated = truncate(text, limit)
        self._budget_left -= shown
        category = tool.category if tool else "other"
        visibility = tool.visibility if tool else "secondary"
        for each in [call, *(duplicates or [])]:
            shared = each is not call
            self._results[each.id] = ToolResultMessage(call_id=each.id, name=each.name, content=text,
                                                       status=status)
            self.emit(self.events.make(
                ToolResult, id=each.id, name=each.name, result=text, status=status,
                duration_ms=0 if shared else duration_ms, category=category, visibility=visibility,
                truncated=truncated, data=data))
