"""Quitting the window while an answer streams: the run is stopped, its partial answer is saved marked
interrupted, and the session's background work ends before the loop closes."""

from __future__ import annotations

import asyncio

from tests.support.loopback import LoopbackServer
from tests.support.stalled_window import STREAMED_BEFORE_STALL, open_window_on_a_stalled_stream

GUARD_S = 10.0  # hang guard, not a speed assertion


def test_quit_mid_answer_saves_the_partial_answer(qtbot, qasync_loop, loopback: LoopbackServer, parley_home):
    window, session = open_window_on_a_stalled_stream(qasync_loop, loopback)
    qtbot.addWidget(window)
    events = []
    session.controller.event_emitted.connect(events.append)
    session.send("How do otters eat?")

    async def until_streaming() -> None:
        async with asyncio.timeout(GUARD_S):
            while sum(e.type == "content" for e in events) < 2:  # noqa: ASYNC110 (a Qt signal feeds the list)
                await asyncio.sleep(0.01)

    qasync_loop.run_until_complete(until_streaming())
    assert session.controller.running
    qasync_loop.run_until_complete(asyncio.wait_for(session.aclose(), GUARD_S))
    assert not session.controller.running
    assert [e.finish_reason for e in events if e.type == "done"] == ["cancelled"]
    user, answer = session.history.branch(session.conversation_id)
    assert user.content == "How do otters eat?"
    assert (answer.content, answer.status) == (STREAMED_BEFORE_STALL, "interrupted")
    assert "".join(e.content for e in events if e.type == "content") == answer.content
    session.history.close()
