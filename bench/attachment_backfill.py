"""Indexing the attachments of a history written before migration 6: what opening it costs, how long the
batches that index them afterwards hold the window (and the write lock), and how search answers afterwards.

Builds a schema-5 history in a temporary folder: ``--attachments`` attached files on ``--attachments / 2``
conversations of a question and an answer each, two in three documents whose text is random words, its length
log-uniform between 500 characters and the attachment limit (100,000; a few exactly at it), one in three
images (a name, no text). Then, in the same run:

- ``open_ms``: the first open with this Parley of a fresh copy (migration 6 included, and the switch to WAL
  every first open makes), against ``open_baseline_ms``: the first open of a copy migrated to 6 beforehand,
  alternating, median of ``OPEN_PAIRS`` each (the ratio is what migration 6 adds to that start);
- the backfill in batches as the window runs it (``index_batch`` until nothing waits): each batch's time, the
  slowest and the median, against ``one_shot_ms``: indexing everything in one statement on a copy (what a
  migration doing the work itself would hold the window for);
- search over messages and attachments for a rare word and a common one (the common one also over messages
  alone, the search before migration 6, as its baseline), and the file's growth.

    python -m bench.attachment_backfill [--attachments N] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from app.storage import History
from app.storage.attachment_index import BATCH_CHARS, BATCH_ROWS, index_batch, pending_count
from app.storage.connection import Database
from app.storage.integrity import expected_schema
from app.storage.migrations import ATTACHMENT_INDEX_CHARS, MIGRATIONS, apply_migrations
from app.storage.search import HistorySearch

VOCABULARY = [f"term{i}" for i in range(5_000)]
RARE = "quetzalcoatl"
OPEN_PAIRS = 5
COMMON = "term7"


def document_text(rng: random.Random, i: int) -> str:
    if i % 50 == 0:
        length = ATTACHMENT_INDEX_CHARS
    else:
        length = int(math.exp(rng.uniform(math.log(500), math.log(ATTACHMENT_INDEX_CHARS))))
    words: list[str] = []
    size = 0
    while size < length:
        word = rng.choice(VOCABULARY)
        words.append(word)
        size += len(word) + 1
    if i % 400 == 1:
        words.insert(rng.randrange(len(words)), RARE)
    return " ".join(words)[:length]


def build_version_5(path: Path, attachments: int, rng: random.Random) -> int:
    """A schema-5 history; returns the characters of attachment text in it."""
    db = Database(sqlite3.connect(path))
    apply_migrations(db, MIGRATIONS[:5])
    conversations = max(1, attachments // 2)
    chars = 0
    with db.atomic():
        for c in range(1, conversations + 1):
            db.execute("INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
                       [c, f"Conversation {c}", c, c])
            for m, role in ((2 * c - 1, "user"), (2 * c, "assistant")):
                content = " ".join(rng.choice(VOCABULARY) for _ in range(rng.randint(10, 80)))
                db.execute("INSERT INTO messages (id, conversation_id, role, content, created_at, updated_at) "
                           "VALUES (?, ?, ?, ?, ?, ?)", [m, c, role, content, m, m])
        for i in range(1, attachments + 1):
            message = 2 * ((i - 1) % conversations) + 1
            image = i % 3 == 0
            text = None if image else document_text(rng, i)
            chars += len(text or "")
            db.execute("INSERT INTO message_attachments (message_id, position, kind, name, media_type, sha256, size, "
                       "text) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       [message, (i - 1) // conversations, "image" if image else "document",
                        f"file{i}.{'png' if image else 'txt'}", "image/png" if image else "text/plain",
                        f"{i:064x}", len(text or "") or 1000, text])
    db.close()
    return chars


def timed_ms(action: object) -> float:
    start = time.perf_counter()
    action()  # type: ignore[operator]
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attachments", type=int, default=3_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "history.db"
        started = time.perf_counter()
        chars = build_version_5(path, args.attachments, random.Random(args.seed))
        build_s = time.perf_counter() - started
        size_before = path.stat().st_size
        copy = Path(folder) / "copy.db"
        shutil.copy(path, copy)
        expected_schema()  # the schema check's cache, built once per process: not part of either figure
        open_ms_runs, baseline_runs = [], []
        for k in range(OPEN_PAIRS):  # A B A B: each a first open of a fresh copy, alternating
            fresh, migrated = Path(folder) / f"fresh{k}.db", Path(folder) / f"migrated{k}.db"
            shutil.copy(path, fresh)
            shutil.copy(path, migrated)
            raw = Database(sqlite3.connect(migrated))  # the baseline: migration 6 applied beforehand
            apply_migrations(raw)
            raw.close()
            open_ms_runs.append(timed_ms(lambda: History.open(fresh).close()))  # noqa: B023 (called at once)
            baseline_runs.append(timed_ms(lambda: History.open(migrated).close()))  # noqa: B023
            fresh.unlink()
            migrated.unlink()
        opened: list[History] = []
        open_ms = timed_ms(lambda: opened.append(History.open(path)))
        history = opened[0]
        waiting = pending_count(history.db)
        batches: list[float] = []
        while True:
            rows: list[int] = []
            ms = timed_ms(lambda: rows.append(index_batch(history.db)))  # noqa: B023 (called at once)
            if not rows[0]:
                break
            batches.append(ms)
        search = HistorySearch(history)
        rare_ms = statistics.median(timed_ms(lambda: search.search(RARE)) for _ in range(9))
        common_ms = statistics.median(timed_ms(lambda: search.search(COMMON)) for _ in range(9))
        messages_only = ("SELECT m.id, snippet(messages_fts, 0, '**', '**', '…', 12) FROM messages_fts "
                         "JOIN messages m ON m.id = messages_fts.rowid WHERE messages_fts MATCH ? "
                         "ORDER BY bm25(messages_fts) LIMIT 20")
        messages_common_ms = statistics.median(
            timed_ms(lambda: history.db.execute(messages_only, [f'"{COMMON}"']).fetchall()) for _ in range(9))
        rare_hits = sum(1 for h in search.search(RARE, limit=500) if h.attachment_name)
        history.close()
        size_after = path.stat().st_size + (path.with_name("history.db-wal").stat().st_size
                                            if path.with_name("history.db-wal").exists() else 0)

        with History.open(copy) as other:  # baseline: everything in one statement, as a blocking migration would
            one_shot_ms = timed_ms(lambda: other.db.conn.executescript(
                "BEGIN IMMEDIATE; INSERT INTO attachments_fts (rowid, name, text) "
                "SELECT id, name, text FROM attachments_indexed; UPDATE attachments_fts_pending SET upto = 0; "
                "COMMIT;"))

    open_ms, baseline_ms = statistics.median(open_ms_runs), statistics.median(baseline_runs)
    result = {
        "attachments": args.attachments, "documents": args.attachments - args.attachments // 3,
        "text_mb": round(chars / 1e6, 1), "build_s": round(build_s, 1),
        "batch_rows": BATCH_ROWS, "batch_chars": BATCH_CHARS,
        "open_ms": round(open_ms, 1), "open_baseline_ms": round(baseline_ms, 1),
        "open_ratio": round(open_ms / baseline_ms, 2),
        "waiting": waiting, "batches": len(batches),
        "batch_median_ms": round(statistics.median(batches), 1),
        "batch_p95_ms": round(sorted(batches)[int(len(batches) * 0.95)], 1),
        "batch_max_ms": round(max(batches), 1),
        "backfill_total_ms": round(sum(batches)), "one_shot_ms": round(one_shot_ms),
        "longest_hold_ratio": round(max(batches) / one_shot_ms, 4),
        "total_ratio": round(sum(batches) / one_shot_ms, 2),
        "file_mb_before": round(size_before / 1e6, 1), "file_mb_after": round(size_after / 1e6, 1),
        "search_rare_ms": round(rare_ms, 2), "search_common_ms": round(common_ms, 2),
        "messages_only_common_ms": round(messages_common_ms, 2), "rare_attachment_hits": rare_hits,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
