"""A stream that stalls in the window: the answer so far reaches the database within the checkpoint interval of
its last token, although no further event arrives (the window runs through the run service, whose timer
writes it)."""

from __future__ import annotations

import asyncio
import sqlite3
import time

from app.paths import resolve_paths
from app.storage.run_recorder import CHECKPOINT_INTERVAL_S
from tests.support.loopback import LoopbackServer
from tests.support.stalled_window import STREAMED_BEFORE_STALL, open_window_on_a_stalled_stream

GUARD_S = 10.0  # hang guard, not a speed assertion
SCHEDULING_SLACK_S = 0.5  # the Qt event loop and the disk, on a shared test machine


def streaming_answers(database) -> list[str]:
    with sqlite3.connect(database) as db:
        rows = db.execute("SELECT content FROM messages WHERE role = 'assistant' AND status = 'streaming'")
        return [row[0] for row in rows]


def test_a_stalled_answer_is_saved_within_the_interval_of_its_last_token(qtbot, qasync_loop,
                                                                          loopback: LoopbackServer, parley_home):
    window, session = open_window_on_a_stalled_stream(qasync_loop, loopback)
    qtbot.addWidget(window)
    token_times: list[float] = []
    session.controller.event_emitted.connect(
        lambda e: token_times.append(time.monotonic()) if e.type == "content" else None)
    session.send("How do otters eat?")

    async def until_saved() -> float:
        async with asyncio.timeout(GUARD_S):
            while len(token_times) < 2 or not streaming_answers(resolve_paths().database):  # noqa: ASYNC110 (polls the file)
                await asyncio.sleep(0.02)
        return time.monotonic()

    saved_at = qasync_loop.run_until_complete(until_saved())
    assert session.controller.running, "the stream is still stalled, so the timer wrote it, not the end of the run"
    assert streaming_answers(resolve_paths().database) == [STREAMED_BEFORE_STALL]
    assert saved_at - token_times[-1] <= CHECKPOINT_INTERVAL_S + SCHEDULING_SLACK_S
    qasync_loop.run_until_complete(asyncio.wait_for(session.aclose(), GUARD_S))
    session.history.close()
