"""Opening a conversation whose answer is huge: the chat view's layout limits (widgets/render_limits.py) against
the same view with the limits lifted, in the same run.

Cases: a 200,000-character line, the same line in a code block, a 50,000-line Python code block, a
2,000,000-character answer of ordinary paragraphs and a 2,000-row table of 20 columns. Each is opened with
``ChatView.set_messages`` in a 700 px wide view, then the event queue is run and the view painted. Reported
per case: seconds with the limits and without them, and their ratio. A plain paragraph of the same size is
the baseline each is compared with. Prints one JSON object.

    QT_QPA_PLATFORM=offscreen python -m bench.hostile_open
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtWidgets import QApplication

CASES = {
    "line_200k": "x" * 200_000,
    "code_line_200k": "```\n" + "x" * 200_000 + "\n```",
    "code_50k_lines": "```python\n" + "\n".join(f"print({i})  # line {i}" for i in range(50_000)) + "\n```",
    "answer_2m_chars": ("The quick brown fox jumps over the lazy dog. " * 20 + "\n\n") * 2_200,
    "table_2000x20": ("| " + " | ".join(f"h{i}" for i in range(20)) + " |\n|" + "---|" * 20 + "\n"
                      + "\n".join("| " + " | ".join(f"c{r}.{i}" for i in range(20)) + " |" for r in range(2000))),
}
BASELINE = ("word " * 40_000).strip()  # 200,000 characters of ordinary text


@contextmanager
def limits_lifted() -> Iterator[None]:
    """The answer builder without the layout limits: no added breaks, every line and row, colours always."""
    import widgets.markdown_document as builder
    import widgets.render_limits as limits

    saved = (builder.with_breaks, builder.CODE_MAX_LINES, builder.CODE_HIGHLIGHT_MAX_LINES, builder.table_rows_shown)
    saved_message = limits.LayoutBudget.__init__.__defaults__
    limits.LayoutBudget.__init__.__defaults__ = (10**12,)
    builder.with_breaks = lambda text: text
    builder.CODE_MAX_LINES = builder.CODE_HIGHLIGHT_MAX_LINES = 10**9
    builder.table_rows_shown = lambda columns: 10**9
    try:
        yield
    finally:
        limits.LayoutBudget.__init__.__defaults__ = saved_message
        (builder.with_breaks, builder.CODE_MAX_LINES, builder.CODE_HIGHLIGHT_MAX_LINES,
         builder.table_rows_shown) = saved


def open_seconds(app: QApplication, answer: str) -> float:
    from widgets.chat_view import ChatMessage, ChatView

    view = ChatView()
    view.resize(700, 800)
    view.show()
    app.processEvents()
    start = time.perf_counter()
    view.set_messages([ChatMessage("user", "Show me"), ChatMessage("assistant", answer)])
    app.processEvents()
    view.viewport().repaint()
    seconds = time.perf_counter() - start
    view.close()
    view.deleteLater()
    app.processEvents()
    return seconds


def main() -> None:
    app = QApplication.instance() or QApplication(sys.argv)
    assert isinstance(app, QApplication)
    baseline = open_seconds(app, BASELINE)
    result: dict[str, object] = {"benchmark": "hostile_open", "baseline_paragraph_s": round(baseline, 3)}
    for name, answer in CASES.items():
        limited = open_seconds(app, answer)
        with limits_lifted():
            lifted = open_seconds(app, answer)
        result[name] = {"limited_s": round(limited, 3), "lifted_s": round(lifted, 3),
                        "lifted_to_limited": round(lifted / limited, 1),
                        "limited_to_baseline": round(limited / baseline, 1)}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
