"""Opening a conversation with its latest run's view state: the chat plus the panes rebuilt from stored events.

A conversation is recorded in a real SQLite file with one run of ``--deltas`` content pieces, a quarter as many
reasoning pieces over two phases, four searches with eight results each, a fetched page, a warning, and three
model calls whose captured request and response bodies are 32,000 characters each (the capture limit). The
clock covers what opening it costs: reading the branch and the run's events, folding them
(``ConversationState.from_stored``) and handing them to the chat, both panes, the banner and the inspector
(``ConversationViews.show``). The baseline, in the same run, is what opening cost before view state: the chat's
messages and the banner's stored warnings only (panes left as they were), the warnings read from their rows
alone and replayed into the banner the way the window replays a stored run (``stored_warnings``). Median of
``--repeat`` opens.

    python -m bench.conversation_switch [--deltas 2000,20000] [--repeat 5]

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from app.session.conversation_views import ConversationViews
from app.session.history_view import chat_messages
from app.session.live_runs import LiveRuns
from app.storage import History
from app.storage.run_recorder import RunRecorder
from orchestration.events import (
    ContentDelta,
    Done,
    EventFactory,
    ModelCallFinished,
    ModelCallStarted,
    ModelExchange,
    ReasoningDelta,
    RunEvent,
    RunStarted,
    RunWarning,
    ToolCallInfo,
    ToolCalls,
    ToolExecuting,
    ToolResult,
    Usage,
)
from orchestration.stored_events import read_stored
from widgets.code_highlighter import warm_up
from widgets.main_window import MainWindow

CAPTURE_CHARS = 32_000


def record_run(history: History, deltas: int) -> int:
    conversation = history.create_conversation("bench")
    recorder = RunRecorder(history, conversation)
    ids = recorder.begin("Tell me about otters", provider="bench", model="m")
    f = EventFactory(ids.run_id)
    events = [f.make(RunStarted, provider="bench", model="m")]

    def model_call(phase_reasoning: int, text: int, calls: list[ToolCallInfo]) -> None:
        f.iteration += 1
        events.append(f.make(ModelCallStarted, model="m", message_count=3, tools=["web_search", "web_fetch"]))
        events.extend(f.make(ReasoningDelta, content=f"thinking {i} ") for i in range(phase_reasoning))
        events.extend(f.make(ContentDelta, content=f"word{i} " + ("\n\n" if i % 40 == 39 else ""))
                      for i in range(text))
        if calls:
            events.append(f.make(ToolCalls, calls=calls))
        events.append(f.make(Usage, input_tokens=1000, output_tokens=text))
        events.append(f.make(ModelExchange, method="POST", path="chat/completions", request_body="x" * CAPTURE_CHARS,
                             status=200, content_type="text/event-stream", response_body="y" * CAPTURE_CHARS))
        events.append(f.make(ModelCallFinished, finish_reason="tool_calls" if calls else "stop", duration_ms=900,
                             first_token_ms=200, input_tokens=1000, output_tokens=text))
        for call in calls:
            events.append(f.make(ToolExecuting, id=call.id, name=call.name, category="search", visibility="primary"))
            data = ({"kind": "search", "backend": "bench", "query": call.arguments,
                     "results": [{"title": f"Result {call.id}-{n}", "url": f"https://example.org/{call.id}/{n}",
                                  "snippet": "A snippet about otters. " * 5} for n in range(8)]}
                    if call.name == "web_search" else
                    {"kind": "fetch", "url": "https://example.org/page", "title": "A page", "truncated": False})
            events.append(f.make(ToolResult, id=call.id, name=call.name, result="results " * 200, status="ok",
                                 duration_ms=120, category="search", visibility="primary", data=data))

    searches = [ToolCallInfo(id=f"s{n}", name="web_search", arguments=json.dumps({"query": f"otters {n}"}))
                for n in range(4)]
    model_call(deltas // 8, 0, searches)
    events.append(f.make(RunWarning, code="TOOL_CLAMP", message="Only the first calls were run."))
    model_call(deltas // 8, 0, [ToolCallInfo(id="f1", name="web_fetch", arguments='{"url": "https://example.org/page"}')])
    model_call(0, deltas, [])
    events.append(f.make(Done, finish_reason="stop"))
    for event in events:
        recorder(event)
    return conversation


def stored_warnings(history: History, run_id: str) -> list[RunEvent]:
    """The baseline's banner: the run's stored ``run_started`` and ``warning`` events only, read the way the
    window reads stored events (``read_stored``) and replayed into the banner as it replays a whole run."""
    rows = history.db.execute("SELECT event FROM run_events WHERE run_id = ? AND type IN ('run_started', 'warning') "
                              "ORDER BY seq", [run_id])
    return read_stored(json.loads(text) for (text,) in rows).events


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deltas", default="2000,20000")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.resize(1280, 820)
    window.show()
    window.toggle_inspector()
    views = ConversationViews(window, LiveRuns())
    report: dict[str, object] = {"benchmark": "conversation_switch", "platform": os.environ["QT_QPA_PLATFORM"]}
    warm_up()  # the syntax lexers are built while the app is idle after start (cold_start), not on a switch
    with tempfile.TemporaryDirectory() as folder:
        history = History.open(Path(folder) / "history.db")
        empty = history.create_conversation("empty")
        for deltas in (int(d) for d in args.deltas.split(",")):
            conversation = record_run(history, deltas)
            with_state: list[float] = []
            chat_only: list[float] = []
            for _ in range(args.repeat):
                views.show(history, empty, history.branch(empty), lambda name: "primary")
                app.processEvents()
                start = time.perf_counter()
                views.show(history, conversation, history.branch(conversation), lambda name: "primary")
                window.inspector.flush()
                app.processEvents()
                with_state.append(time.perf_counter() - start)
                panes: dict[str, int] = {"reasoning_phases": window.reasoning_pane.phase_count(),
                         "search_entries": len(window.search_pane.entries()),
                         "timeline_rows": len(window.inspector.timeline_rows())}

                views.show(history, empty, history.branch(empty), lambda name: "primary")
                app.processEvents()
                start = time.perf_counter()
                window.chat_view.set_messages(chat_messages(history.branch(conversation)))
                runs = history.runs(conversation)
                window.banner.clear()
                for event in stored_warnings(history, runs[-1].id):
                    window.banner.handle_event(event)
                app.processEvents()
                chat_only.append(time.perf_counter() - start)
                panes["baseline_banner_warnings"] = len(window.banner.messages())  # the baseline did show it
            events = len(history.run_events(history.runs(conversation)[-1].id))
            report[f"deltas_{deltas}"] = {
                "stored_events": events, "open_with_view_state_ms": median_ms(with_state),
                "open_chat_and_banner_only_ms": median_ms(chat_only),
                "ratio": round(statistics.median(with_state) / statistics.median(chat_only), 2),
                "panes": panes}
        history.close()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
