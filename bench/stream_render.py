"""Streaming a long markdown answer through the real chat view: CPU, event-loop stalls, lag, correctness.

A synthetic answer (headings, paragraphs, lists, fenced code; 4 characters a token) is fed to ``ChatView`` at
a fixed token rate by a 1 ms Qt timer, while a 1 ms heartbeat timer records the largest gaps in the event
loop. Reported: CPU ms per token, stall p99 and max, lag from the last token to the moment it is on screen,
and whether the final document equals a full render. The naive baseline (``setMarkdown`` of the whole text on
every token, in a plain QTextBrowser) is measured in the same run on a shorter answer (it is super-linear).

    python -m bench.stream_render [--tokens N] [--rate R] [--baseline-tokens M]

Prints one JSON object. Runs offscreen unless QT_QPA_PLATFORM is set.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QElapsedTimer, QEventLoop, Qt, QTimer
from PySide6.QtWidgets import QApplication, QTextBrowser

from widgets.chat_view import ChatView
from widgets.markdown_render import render_markdown

CHARS_PER_TOKEN = 4


def synthetic_answer(tokens: int) -> str:
    """Markdown of about ``tokens`` tokens mixing the block kinds a chat answer has."""
    sections = []
    i = 0
    while sum(len(s) for s in sections) < tokens * CHARS_PER_TOKEN:
        i += 1
        sections.append(
            f"## Section {i}\n\n"
            f"This paragraph explains step {i} with **bold** words, `inline code` and a "
            f"[link](https://example.org/{i}). It runs on for a while so that lines wrap in the view.\n\n"
            f"- first point of {i}\n- second point with *emphasis*\n- third point\n\n"
            f"```python\ndef step_{i}(x):\n    total = x * {i}\n    return total + 1\n```\n\n"
            f"> A short quote for section {i}.\n\n"
        )
    text = "".join(sections)
    return text[: tokens * CHARS_PER_TOKEN]


def pieces(text: str) -> list[str]:
    return [text[i:i + CHARS_PER_TOKEN] for i in range(0, len(text), CHARS_PER_TOKEN)]


def _spin(app: QApplication, done: Callable[[], bool], timeout_s: float) -> None:
    loop = QEventLoop()
    check = QTimer()
    check.setInterval(1)
    check.timeout.connect(lambda: loop.quit() if done() else None)
    check.start()
    QTimer.singleShot(int(timeout_s * 1000), loop.quit)
    loop.exec()
    check.stop()


def measure(app: QApplication, tokens: list[str], rate: float, push: Callable[[str], None],
            settled: Callable[[], bool]) -> dict[str, float]:
    clock = QElapsedTimer()
    gaps: list[float] = []
    last_beat = [0.0]

    def beat() -> None:
        now = clock.nsecsElapsed() / 1e6
        gaps.append(now - last_beat[0])
        last_beat[0] = now

    heartbeat = QTimer()
    heartbeat.setTimerType(Qt.TimerType.PreciseTimer)
    heartbeat.setInterval(1)
    heartbeat.timeout.connect(beat)
    sent = [0]
    finished_at = [0.0]

    def feed() -> None:
        due = min(len(tokens), int(clock.nsecsElapsed() / 1e9 * rate) + 1)
        while sent[0] < due:
            push(tokens[sent[0]])
            sent[0] += 1
        if sent[0] == len(tokens) and not finished_at[0]:
            finished_at[0] = clock.nsecsElapsed() / 1e6
            feeder.stop()

    feeder = QTimer()
    feeder.setTimerType(Qt.TimerType.PreciseTimer)
    feeder.setInterval(1)
    feeder.timeout.connect(feed)
    cpu_start = time.process_time()
    clock.start()
    heartbeat.start()
    feeder.start()
    _spin(app, lambda: bool(finished_at[0]) and settled(), timeout_s=len(tokens) / rate + 600)
    shown_at = clock.nsecsElapsed() / 1e6
    cpu = time.process_time() - cpu_start
    heartbeat.stop()
    gaps = gaps[1:] or [0.0]
    ordered = sorted(gaps)
    return {
        "tokens": len(tokens),
        "rate_tok_s": rate,
        "cpu_s": round(cpu, 3),
        "cpu_ms_per_token": round(cpu * 1000 / len(tokens), 4),
        "core_share": round(cpu / (finished_at[0] / 1000), 3) if finished_at[0] else None,
        "stall_max_ms": round(max(gaps), 2),
        "stall_p99_ms": round(ordered[int(0.99 * (len(ordered) - 1))], 2),
        "stall_median_ms": round(statistics.median(gaps), 2),
        "lag_ms": round(shown_at - finished_at[0], 2),
    }


def run_parley(app: QApplication, text: str, rate: float) -> dict[str, object]:
    view = ChatView()
    view.resize(900, 700)
    view.show()
    _spin(app, lambda: False, timeout_s=0.3)  # idle time, as in the app before the first answer arrives
    view.begin_assistant()
    rendered = {"done": False}
    original = view._render_frame

    def render_and_note() -> None:
        original()
        rendered["done"] = view._region is None or not view._region.dirty

    view._frame.timeout.disconnect()
    view._frame.timeout.connect(render_and_note)
    result: dict[str, object] = dict(measure(app, pieces(text), rate, view.append_content,
                                             lambda: rendered["done"]))
    view.end_assistant("stop")
    shown = view.toPlainText()[len("Assistant\n"):]
    result["equals_full_render"] = shown == render_markdown(text).toPlainText()
    view.close()
    return result


def harness_floor(app: QApplication, text: str, rate: float) -> dict[str, object]:
    """The feeder and heartbeat timers alone, pushing into nothing: subtract from the numbers above."""
    return dict(measure(app, pieces(text), rate, lambda piece: None, lambda: True))


def run_naive(app: QApplication, text: str, rate: float) -> dict[str, object]:
    browser = QTextBrowser()
    browser.resize(900, 700)
    browser.show()
    buffer: list[str] = []

    def push(piece: str) -> None:
        buffer.append(piece)
        browser.setMarkdown("".join(buffer))

    result: dict[str, object] = dict(measure(app, pieces(text), rate, push, lambda: True))
    browser.close()
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tokens", type=int, default=16_000)
    parser.add_argument("--rate", type=float, default=2_000.0, help="tokens per second")
    parser.add_argument("--baseline-tokens", type=int, default=2_000,
                        help="answer length for the naive baseline (0 to skip)")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    report: dict[str, object] = {"benchmark": "stream_render", "platform": os.environ["QT_QPA_PLATFORM"]}
    report["harness_floor"] = harness_floor(app, synthetic_answer(args.tokens), args.rate)
    report["parley"] = run_parley(app, synthetic_answer(args.tokens), args.rate)
    floor = report["harness_floor"]["cpu_ms_per_token"]  # type: ignore[index]
    report["parley"]["cpu_ms_per_token_net"] = round(report["parley"]["cpu_ms_per_token"] - floor, 4)  # type: ignore[index,operator]
    if args.baseline_tokens:
        text = synthetic_answer(args.baseline_tokens)
        report["naive_setMarkdown_per_token"] = run_naive(app, text, args.rate)
        report["parley_same_length"] = run_parley(app, text, args.rate)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
