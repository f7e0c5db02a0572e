"""Opening long conversations in the chat view: time to first paint and memory added.

Conversations of 500 and 5,000 messages (alternating user questions and markdown answers, about 1,000
characters each) are handed to ``ChatView.set_messages``; the clock stops when the view has painted. The
baseline, measured in the same run, is a plain ``QTextBrowser.setMarkdown`` of the whole conversation.

    python -m bench.history_load [--sizes 500,5000]

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QEvent, QEventLoop, QObject, QTimer
from PySide6.QtWidgets import QApplication, QTextBrowser

from widgets.chat_view import ChatMessage, ChatView


def conversation(n: int) -> list[ChatMessage]:
    messages = []
    for i in range(n):
        if i % 2 == 0:
            messages.append(ChatMessage("user", f"Question {i}: how does part {i} of the system work?"))
        else:
            messages.append(ChatMessage("assistant", (
                f"## Answer {i}\n\nPart {i} works like this: it reads the input, **validates** it, and writes the "
                f"result. See [the docs](https://example.org/{i}).\n\n- step one\n- step two\n- step three\n\n"
                f"```python\nresult = handle(part_{i})\n```\n\n") + "More detail follows here. " * 20))
    return messages


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        pages = int(f.read().split()[1])
    return pages * resource.getpagesize() / 1e6


class _PaintWatcher(QObject):
    def __init__(self, loop: QEventLoop) -> None:
        super().__init__()
        self.loop = loop

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, self.loop.quit)  # runs once this paint has finished
        return False


def until_painted(app: QApplication, widget: QTextBrowser) -> None:
    loop = QEventLoop()
    watcher = _PaintWatcher(loop)
    widget.viewport().installEventFilter(watcher)
    widget.show()
    QTimer.singleShot(10_000, loop.quit)
    loop.exec()
    widget.viewport().removeEventFilter(watcher)


def measure_parley(app: QApplication, messages: list[ChatMessage]) -> dict[str, float]:
    before = rss_mb()
    start = time.perf_counter()
    view = ChatView()
    view.resize(900, 700)
    view.set_messages(messages)
    until_painted(app, view)
    elapsed = time.perf_counter() - start
    result = {"first_paint_ms": round(elapsed * 1000, 1), "memory_added_mb": round(rss_mb() - before, 1),
              "messages_rendered": view.shown_message_count}
    view.close()
    view.deleteLater()
    return result


def measure_plain(app: QApplication, messages: list[ChatMessage]) -> dict[str, float]:
    text = "\n\n".join(m.text for m in messages)
    before = rss_mb()
    start = time.perf_counter()
    browser = QTextBrowser()
    browser.resize(900, 700)
    browser.setMarkdown(text)
    until_painted(app, browser)
    elapsed = time.perf_counter() - start
    result = {"first_paint_ms": round(elapsed * 1000, 1), "memory_added_mb": round(rss_mb() - before, 1)}
    browser.close()
    browser.deleteLater()
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="500,5000")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    report: dict[str, object] = {"benchmark": "history_load", "platform": os.environ["QT_QPA_PLATFORM"]}
    measure_parley(app, conversation(10))  # first use of fonts, styles and lexers belongs to cold_start
    measure_plain(app, conversation(10))
    for size in (int(s) for s in args.sizes.split(",")):
        messages = conversation(size)
        report[f"parley_{size}"] = measure_parley(app, messages)
        report[f"whole_setMarkdown_{size}"] = measure_plain(app, messages)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
