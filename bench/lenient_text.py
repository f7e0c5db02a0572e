"""Reading the history's text with the replacing decoder (app/storage/text_safety.py) against the driver's own.

A conversation of N messages (alternating questions and answers of about 1,000 characters, all valid UTF-8) is
written to a real history file and read back with ``History.branch`` on a ``SafeTextConnection`` (text read by
``readable_text``, one Python call per value) and, in the same run, with the connection's ``text_factory`` set back
to ``str`` (the driver's C decoder, which raises on bytes that are not UTF-8). Reads interleaved, best of R each.

    python -m bench.lenient_text [--messages 5000] [--repeat 15]

Prints one JSON object; ``ratio`` is lenient / strict.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from app.storage import History
from app.storage.text_safety import readable_text


def read_ms(history: History, conversation_id: int, factory: type[str] | object) -> float:
    history.db.conn.text_factory = factory
    start = time.perf_counter()
    history.branch(conversation_id)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, History.open(Path(folder) / "history.db") as history:
        cid = history.create_conversation("Bench")
        with history.db.atomic():
            for i in range(args.messages):
                history.add_message(cid, "user" if i % 2 == 0 else "assistant",
                                    f"Message {i} about café culture. " + "More detail follows here. " * 36)
        history.branch(cid)  # warm the page cache, so neither side pays for the first read
        lenient, strict = [], []
        for _ in range(args.repeat):  # interleaved, so a burst of load on the shared machine hits both sides
            lenient.append(read_ms(history, cid, readable_text))
            strict.append(read_ms(history, cid, str))
        history.db.conn.text_factory = readable_text
        best_lenient, best_strict = min(lenient), min(strict)
    print(json.dumps({"messages": args.messages, "repeat": args.repeat, "lenient_ms": round(best_lenient, 1),
                      "strict_ms": round(best_strict, 1), "ratio": round(best_lenient / best_strict, 3)}))


if __name__ == "__main__":
    main()
