"""Large answers in the real chat view: rendered from history, and streamed, against plain paragraphs.

Three answers of the same number of lines: 20,000 list items, 10,000 lines of deep nesting (a list whose items
nest up to 30 levels, and a blockquote ladder up to 50 levels), and, as the baseline in the same run, the same
number of plain paragraphs. For each:

- ``history_s``: ``ChatView.set_messages`` with the answer, until the view has laid it out and painted
  (target < 1 s); the ratio to the baseline says whether a construct costs more than plain text.
- streaming: the answer is fed in pieces of ``--chunk`` characters, one piece per frame, each frame rendered
  (``flush``) and painted (``grab``); ``frame_max_ms`` is the slowest frame (target <= 16 ms) and
  ``frame_p99_ms`` the 99th percentile, in wall time; ``frame_cpu_*`` the same in this process's CPU time, which
  other processes on a shared machine do not inflate.

    python -m bench.render_scale [--chunk 400] [--only NAME]

Prints one JSON object. Runs offscreen unless QT_QPA_PLATFORM is set.
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from widgets.chat_view import ChatMessage, ChatView


def list_items(n: int = 20_000) -> str:
    return "".join(f"- item {i} with **bold** and `code`\n" for i in range(n))


def paragraphs(n: int) -> str:
    return "".join(f"Paragraph {i} with **bold** and `code`\n\n" for i in range(n))


def nested_list(n: int = 10_000) -> str:
    return "".join("  " * (i % 30) + f"- level {i % 30} line {i}\n" for i in range(n))


def nested_quote(n: int = 10_000) -> str:
    return "".join(">" * (i % 50 + 1) + f" quoted line {i}\n" for i in range(n))


CASES = {
    "list_20000": list_items,
    "paragraphs_20000": lambda: paragraphs(20_000),
    "nested_list_10000": nested_list,
    "nested_quote_10000": nested_quote,
    "paragraphs_10000": lambda: paragraphs(10_000),
}


def make_view() -> ChatView:
    view = ChatView()
    view.resize(900, 700)
    view.show()
    return view


def history(app: QApplication, text: str) -> float:
    view = make_view()
    app.processEvents()
    start = time.perf_counter()
    view.set_messages([ChatMessage("assistant", text)])
    view.document().documentLayout().documentSize()
    view.grab()
    elapsed = time.perf_counter() - start
    view.close()
    view.deleteLater()
    app.processEvents()
    return elapsed


def stream(app: QApplication, text: str, chunk: int) -> dict[str, float]:
    view = make_view()
    app.processEvents()
    view.begin_assistant()
    frames: list[float] = []
    cpu_frames: list[float] = []
    for start in range(0, len(text), chunk):
        view.append_content(text[start:start + chunk])
        began, cpu = time.perf_counter(), time.process_time()
        view.flush()
        view.scroll_to_bottom()
        view.viewport().grab()
        frames.append((time.perf_counter() - began) * 1000)
        cpu_frames.append((time.process_time() - cpu) * 1000)
    began = time.perf_counter()
    view.end_assistant("stop")
    view.viewport().grab()
    finish_ms = (time.perf_counter() - began) * 1000
    view.close()
    view.deleteLater()
    app.processEvents()
    ordered, cpu_ordered = sorted(frames), sorted(cpu_frames)
    return {"frames": len(frames), "frame_max_ms": round(max(frames), 2),
            "frame_p99_ms": round(ordered[int(0.99 * (len(ordered) - 1))], 2),
            "frame_median_ms": round(ordered[len(ordered) // 2], 2),
            "frame_cpu_max_ms": round(max(cpu_frames), 2),
            "frame_cpu_p99_ms": round(cpu_ordered[int(0.99 * (len(cpu_ordered) - 1))], 2),
            "finish_ms": round(finish_ms, 2)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunk", type=int, default=400, help="characters per frame while streaming")
    parser.add_argument("--only", default="", help="run one case")
    parser.add_argument("--no-stream", action="store_true")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    report: dict[str, object] = {"benchmark": "render_scale", "platform": os.environ["QT_QPA_PLATFORM"],
                                 "chunk_chars": args.chunk}
    for name, make in CASES.items():
        if args.only and name != args.only:
            continue
        text = make()
        result: dict[str, object] = {"chars": len(text), "history_s": round(history(app, text), 3)}
        if not args.no_stream:
            result["stream"] = stream(app, text, args.chunk)
        report[name] = result
    baselines = {"list_20000": "paragraphs_20000", "nested_list_10000": "paragraphs_10000",
                 "nested_quote_10000": "paragraphs_10000"}
    for name, base in baselines.items():
        if name in report and base in report:
            report[name]["history_ratio_to_paragraphs"] = round(  # type: ignore[index]
                report[name]["history_s"] / report[base]["history_s"], 2)  # type: ignore[index]
    print(json.dumps(report))


if __name__ == "__main__":
    main()
