"""How fast the history answers: full-text search against a LIKE scan, and loading a long branch.

Builds a history of N messages in a temporary folder (random words from a small vocabulary plus a rare word in
a few messages), then times ``HistorySearch.search`` for a rare and a common word, the same words with
``content LIKE '%word%'`` (what an unindexed search does), and ``History.branch`` of a conversation of
``--branch`` messages. Prints one JSON object.

    python -m bench.history_search [--messages N] [--branch M] [--repeat R]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from app.storage import History
from app.storage.search import HistorySearch

VOCABULARY = [f"word{i}" for i in range(2_000)]
RARE = "zanzibar"
COMMON = "word7"


def build(history: History, messages: int, branch: int, rng: random.Random) -> int:
    conversations = [history.create_conversation(f"Conversation {i}") for i in range(max(1, messages // 200))]
    rows = []
    for i in range(messages):
        words = [rng.choice(VOCABULARY) for _ in range(rng.randint(10, 80))]
        if i % 25_000 == 0:
            words.insert(rng.randrange(len(words)), RARE)
        rows.append((conversations[i % len(conversations)], "user" if i % 2 == 0 else "assistant", " ".join(words),
                     i, i))
    with history.db.atomic():
        history.db.conn.executemany("INSERT INTO messages (conversation_id, role, content, created_at, updated_at) "
                                    "VALUES (?, ?, ?, ?, ?)", rows)
    long = history.create_conversation("A long conversation")
    parent = None
    with history.db.atomic():
        for i in range(branch):
            parent = history.db.execute(
                "INSERT INTO messages (conversation_id, parent_id, role, content, created_at, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?)", [long, parent, "user" if i % 2 == 0 else "assistant",
                                              " ".join(rng.choice(VOCABULARY) for _ in range(60)), i, i]).lastrowid
        history.db.execute("UPDATE conversations SET current_leaf_id = ? WHERE id = ?", [parent, long])
    return long


def median_ms(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return round(statistics.median(times), 3)


def like(history: History, word: str) -> list:
    return history.db.execute("SELECT id FROM messages WHERE content LIKE ? LIMIT 20", [f"%{word}%"]).fetchall()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--branch", type=int, default=1_000)
    parser.add_argument("--repeat", type=int, default=9)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, History.open(Path(folder) / "history.db") as history:
        started = time.perf_counter()
        long = build(history, args.messages, args.branch, random.Random(1))
        build_s = time.perf_counter() - started
        search = HistorySearch(history)
        result = {
            "messages": args.messages,
            "build_s": round(build_s, 2),
            "file_mb": round((Path(folder) / "history.db").stat().st_size / 1e6, 1),
            "fts_rare_ms": median_ms(lambda: search.search(RARE), args.repeat),
            "like_rare_ms": median_ms(lambda: like(history, RARE), args.repeat),
            "fts_common_ms": median_ms(lambda: search.search(COMMON), args.repeat),
            "like_common_ms": median_ms(lambda: like(history, COMMON), args.repeat),
            "branch_messages": args.branch,
            "load_branch_ms": median_ms(lambda: history.branch(long), args.repeat),
            "rare_hits": len(search.search(RARE)),
        }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
