"""The loop guard where asyncio was imported before the window noted its loop (the path the e2e test in
tests/e2e/test_window_loop_guard.py does not take): scheduling before ``ensure_running`` raises
``LoopNotStartedError``, a worker thread is left alone, and ``forget`` puts asyncio's previous policy back."""

from __future__ import annotations

import asyncio
import threading

import pytest

from app.session import qt_asyncio
from app.session.loop_guard import LoopNotStartedError


async def nothing() -> None:
    return None


def test_scheduling_before_the_loop_started_raises_and_forget_restores_the_policy(qapp) -> None:
    before = asyncio.get_event_loop_policy()
    qt_asyncio.start_when_needed(qapp)
    try:
        coroutine = nothing()
        with pytest.raises(LoopNotStartedError, match=r"qt_asyncio\.ensure_running\(\)"):
            asyncio.ensure_future(coroutine)  # noqa: RUF006  # refused: there is no task to keep
        coroutine.close()
        with pytest.raises(LoopNotStartedError):
            asyncio.get_event_loop()
        on_worker: list[object] = []

        def worker() -> None:  # another thread keeps asyncio's own answer
            try:
                asyncio.get_event_loop()
            except Exception as error:
                on_worker.append(type(error))

        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
        assert on_worker == [RuntimeError]
    finally:
        qt_asyncio.forget()
    assert asyncio.get_event_loop_policy() is before
