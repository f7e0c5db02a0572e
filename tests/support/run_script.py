"""Scripted run event streams for widget tests, stamped by the real ``EventFactory``.

``RunScript`` reads like the run it describes: ``script.reasoning("...")``, ``script.next_call()``,
``script.search(...)``, ``script.content("...")``, ``script.done()``. Each method returns the event it made so
a test can feed it to a widget at once.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from orchestration.events import (
    ContentDelta,
    Done,
    EventFactory,
    ReasoningDelta,
    RunError,
    RunStarted,
    RunWarning,
    ToolCallInfo,
    ToolCalls,
    ToolExecuting,
    ToolResult,
)

_call_numbers = itertools.count(1)


class RunScript:
    """Builds the events of one run in order; ``iteration`` starts at 0 (run_started) and 1 for the first call."""

    def __init__(self, run_id: str = "run-1") -> None:
        self.factory = EventFactory(run_id)

    @property
    def run_id(self) -> str:
        return self.factory.run_id

    def started(self, provider: str = "local", model: str = "test-model") -> RunStarted:
        self.factory.iteration = 0
        event = self.factory.make(RunStarted, provider=provider, model=model)
        self.factory.iteration = 1
        return event

    def next_call(self) -> None:
        """The loop's next model call (after a tool round)."""
        self.factory.iteration += 1

    def reasoning(self, content: str) -> ReasoningDelta:
        return self.factory.make(ReasoningDelta, content=content)

    def content(self, content: str) -> ContentDelta:
        return self.factory.make(ContentDelta, content=content)

    def tool_calls(self, name: str, arguments: dict[str, Any]) -> tuple[ToolCalls, str]:
        call_id = f"call_{next(_call_numbers)}"
        call = ToolCallInfo(id=call_id, name=name, arguments=json.dumps(arguments))
        return self.factory.make(ToolCalls, calls=[call]), call_id

    def executing(self, call_id: str, name: str, category: str = "search") -> ToolExecuting:
        return self.factory.make(ToolExecuting, id=call_id, name=name, category=category, visibility="primary")

    def tool_result(self, call_id: str, name: str, data: Any = None, *, status: str = "ok",
                    category: str = "search", result: str = "...") -> ToolResult:
        return self.factory.make(ToolResult, id=call_id, name=name, result=result, status=status, duration_ms=120,
                                 category=category, visibility="primary", data=data)

    def search(self, query: str, results: list[dict[str, Any]], backend: str = "duckduckgo") -> list[Any]:
        """The events of one web_search call: tool_calls, tool_executing, tool_result with search data."""
        calls, call_id = self.tool_calls("web_search", {"query": query})
        data = {"kind": "search", "backend": backend, "query": query, "results": results}
        return [calls, self.executing(call_id, "web_search"), self.tool_result(call_id, "web_search", data)]

    def fetch(self, url: str, title: str = "", *, truncated: bool = False, status: str = "ok") -> list[Any]:
        """The events of one fetch_url call; a failed fetch carries no data."""
        calls, call_id = self.tool_calls("fetch_url", {"url": url})
        data = {"kind": "fetch", "url": url, "title": title, "truncated": truncated} if status == "ok" else None
        return [calls, self.executing(call_id, "fetch_url"),
                self.tool_result(call_id, "fetch_url", data, status=status)]

    def warning(self, code: str, message: str) -> RunWarning:
        return self.factory.make(RunWarning, code=code, message=message)

    def error(self, message: str, code: str = "server_error") -> RunError:
        return self.factory.make(RunError, message=message, code=code)

    def done(self, finish_reason: str = "stop") -> Done:
        return self.factory.make(Done, finish_reason=finish_reason)


def search_hit(url: str, title: str = "A page", snippet: str = "A snippet.", **extra: Any) -> dict[str, Any]:
    """One entry of a search result list, shaped like the web tools' output."""
    return {"title": title, "url": url, "snippet": snippet, "backend": "duckduckgo", "published": None,
            "score": None, **extra}
