"""A scripted model: a ``ChatAdapter`` that plays back prepared responses instead of calling a provider.

Tests, benchmarks and screenshot scripts use it at the engine boundary. Each model call consumes the next
step; a call with no step left fails, and ``assert_exhausted`` fails when steps were left unused, so a test
cannot silently make fewer calls than it scripted. Responses are built through the shared accumulator, so the
events look exactly like a real adapter's.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from orchestration.accumulate import ResponseAccumulator
from orchestration.engine import ModelFinish, ModelRequest, ProviderEvent, TokenUsage
from orchestration.errors import ProviderError
from orchestration.providers.config import Capabilities


@dataclass
class Step:
    """One scripted model call."""

    text: str | Sequence[str] = ""
    reasoning: str | Sequence[str] = ""
    calls: Sequence[tuple[str, Any]] = ()
    finish: ModelFinish | None = None
    usage: TokenUsage | None = None
    error: ProviderError | None = None
    error_after_output: bool = False
    hang_after_output: bool = False
    delay: float = 0.0
    check: Callable[[ModelRequest], None] | None = None
    response_id: str | None = None
    call_ids: Sequence[str] = field(default_factory=tuple)

    @staticmethod
    def _pieces(value: str | Sequence[str]) -> list[str]:
        if isinstance(value, str):
            return [value] if value else []
        return list(value)

    def events(self) -> list[ProviderEvent]:
        acc = ResponseAccumulator()
        out: list[ProviderEvent] = list(acc.meta(self.response_id, "scripted"))
        for piece in self._pieces(self.reasoning):
            out += acc.reasoning(piece)
        for piece in self._pieces(self.text):
            out += acc.text(piece)
        for i, (name, args) in enumerate(self.calls):
            raw = args if isinstance(args, str) else json.dumps(args)
            call_id = self.call_ids[i] if i < len(self.call_ids) else f"call_{i}"
            out += acc.tool_call_delta(index=i, id=call_id, name=name, arguments=raw)
        if self.usage is not None:
            out += acc.set_usage(self.usage)
        finish: ModelFinish = self.finish or ("tool_calls" if self.calls else "stop")
        out += acc.finish(finish)
        return out


class ScriptExhaustedError(AssertionError):
    pass


class ScriptedModel:
    def __init__(self, steps: Sequence[Step], name: str = "scripted",
                 capabilities: Capabilities | None = None) -> None:
        self.steps = list(steps)
        self._capabilities = capabilities or Capabilities()
        self.requests: list[ModelRequest] = []
        self.closed_streams = 0
        self._name = name

    @property
    def provider_name(self) -> str:
        return self._name

    @property
    def capabilities(self) -> Capabilities:
        return self._capabilities

    async def aclose(self) -> None:
        return None

    def assert_exhausted(self) -> None:
        if self.steps:
            raise ScriptExhaustedError(f"{len(self.steps)} scripted step(s) were never used")

    async def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        self.requests.append(request)
        if not self.steps:
            raise ScriptExhaustedError(f"model call {len(self.requests)} has no scripted step")
        step = self.steps.pop(0)
        if step.check is not None:
            step.check(request)
        if step.error is not None and not step.error_after_output:
            raise step.error
        events = step.events()
        try:
            for event in events[:-1]:
                if step.delay:
                    await asyncio.sleep(step.delay)
                yield event
            if step.error is not None:
                raise step.error
            if step.hang_after_output:
                await asyncio.Event().wait()
            yield events[-1]
        finally:
            self.closed_streams += 1
