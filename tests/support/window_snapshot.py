"""What the window shows of the open conversation, as plain values: chat text and chips, both panes, the
warning banner, the inspector's timeline and the status bar's tokens. Tests compare a live run's snapshot with
the same conversation reopened (in the same session, or after a restart)."""

from __future__ import annotations

import asyncio
from typing import Any

from orchestration.tool_outcome import describe


def chips(window: Any) -> list[tuple[str, str]]:
    """Every shown tool chip of the conversation as (tool name, what its chip says)."""
    shown = []
    for message in window.chat_view.messages():
        for chip in message.tools:
            if chip.visibility != "hidden":
                shown.append((chip.name, describe(chip.status, chip.result, None, repeated=chip.repeated).label))
    return shown


def snapshot(window: Any) -> dict[str, Any]:
    window.chat_view.flush()
    window.reasoning_pane.flush()
    pane = window.reasoning_pane
    search = window.search_pane
    shot: dict[str, Any] = {
        "chat": window.chat_view.toPlainText(),
        "chips": chips(window),
        "reasoning": [(pane.phase_title(i), pane.phase_text(i)) for i in range(pane.phase_count())],
        "reasoning_summary": pane.summary_text(),
        "reasoning_collapsed": pane.is_collapsed(),
        "search_summary": search.summary_text(),
        "search_queries": search.queries_text(),
        "search_entries": [(e.title, e.url, e.read) for e in search.entries()],
        "banner": window.banner.messages(),
        "tokens": window.usage_label.text(),
        "running": window.composer.is_running(),
        "waiting": window.typing.text(),
    }
    if window.inspector.isVisible():
        window.inspector.flush()
        shot["inspector_runs"] = window.inspector.runs.count()
        shot["timeline"] = window.inspector.timeline_rows()
    return shot


def until(loop: Any, condition: Any, timeout: float = 15.0) -> None:
    """Run the qasync ``loop`` until ``condition()`` holds (widget state: there is no event to await)."""
    async def poll() -> None:
        while not condition():  # noqa: ASYNC110 (widgets and Qt signals, no event to await)
            await asyncio.sleep(0.01)
    loop.run_until_complete(asyncio.wait_for(poll(), timeout))
