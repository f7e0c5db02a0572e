"""Render untrusted markdown in the real chat view, in a process of its own (for tests that may hang or crash).

    python -m tests.support.render_child history|stream PAYLOADS.json

Each payload is rendered into a visible ``ChatView`` (from history, or streamed in small pieces) and painted
with ``grab()``, which lays out and draws everything, images included. After each one it prints
``ok <index> refused=<resources the document was asked for>``, so a parent that sees the process hang or die
knows which payload did it.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from widgets.chat_view import ChatMessage, ChatView


def main() -> None:
    mode, path = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as handle:
        payloads: list[str] = json.load(handle)
    app = QApplication.instance() or QApplication([])
    view = ChatView()
    view.resize(700, 500)
    view.show()
    for index, payload in enumerate(payloads):
        if mode == "history":
            view.set_messages([ChatMessage("user", payload), ChatMessage("assistant", payload)])
        else:
            view.set_messages([])
            view.begin_assistant()
            for start in range(0, len(payload), 3):
                view.append_content(payload[start:start + 3])
                view.flush()
                app.processEvents()
            view.end_assistant("stop")
        app.processEvents()
        view.grab()
        refused = getattr(view.document(), "refused", "unknown")
        print(f"ok {index} refused={refused}", flush=True)


if __name__ == "__main__":
    main()
