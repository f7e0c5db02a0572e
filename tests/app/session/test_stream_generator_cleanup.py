"""A stream that stops early (a frame that is not JSON) leaves httpx's and httpcore's body generators
suspended. Parley's loop (app/session/qt_asyncio.py, qasync) must close them as tasks on the loop: without
asyncgen hooks the garbage collector finalized them outside any task, and stderr showed "async generator
ignored GeneratorExit" and an anyio "cancel scope in a different task" traceback (user pass 2026-11-27).
The real window on the loop Parley sets up, a loopback server, a real SQLite file."""

from __future__ import annotations

import asyncio
import gc
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from app.session import qt_asyncio
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_chunks
from tests.support.window_actions import close_window, configure, open_window, settle


@pytest.fixture
def parley_loop(qapp) -> Iterator[asyncio.AbstractEventLoop]:
    """The loop ``parley`` runs (qt_asyncio.start on the running Qt loop), stopped so the test can drive it with
    ``run_until_complete`` as ``run_to_end`` does at quit; closed the way ``run_to_end`` closes it."""
    loop = qt_asyncio.start(qapp)
    loop.stop()
    yield loop
    qt_asyncio.run_to_end(loop, asyncio.sleep(0))
    asyncio.set_event_loop(None)


def test_a_stream_cut_by_a_bad_frame_closes_its_generators_on_the_loop(qtbot, parley_loop, loopback: LoopbackServer,
                                                                       capfd, monkeypatch):
    unraisable: list[str] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda report: unraisable.append(
        f"{report.err_msg or 'unraisable'}: {report.exc_value!r} {report.object!r}"))
    loop_errors: list[str] = []
    parley_loop.set_exception_handler(lambda _loop, context: loop_errors.append(str(context.get("message"))))
    model = configure(loopback)

    def answer(request: Request) -> Response | None:
        if request.path != "/v1/chat/completions":
            return None
        model.sent.append({})
        chunks: list[Any] = stream_chunks("Otters hold hands", piece=4)
        return Response.sse([*chunks[:3], "{this is not json", *chunks[3:]], done=True)

    loopback.handler = answer
    window, session = open_window(qtbot, parley_loop)
    try:
        session.send("Tell me about otters")
        settle(parley_loop, session)
        assert model.sent, "the question reached the loopback server"
        window.chat_view.flush()
        assert "malformed" in window.chat_view.toPlainText().lower()
        for _ in range(3):  # the suspended generators are collected; their closing runs on the loop
            gc.collect()
            parley_loop.run_until_complete(asyncio.sleep(0.05))
    finally:
        close_window(parley_loop, session)
    gc.collect()
    parley_loop.run_until_complete(asyncio.sleep(0.05))
    err = capfd.readouterr().err
    assert "ignored GeneratorExit" not in err and "cancel scope" not in err, err
    assert unraisable == [] and loop_errors == [], (unraisable, loop_errors)


def test_at_quit_an_async_generator_still_open_is_closed_on_the_loop(qapp):
    """``run_to_end`` closes what is still suspended (a stream held open when the app quits) before the loop
    closes, inside a task, as ``asyncio.run`` does with ``shutdown_asyncgens``."""
    closed_in: list[asyncio.Task[Any] | None] = []

    async def body() -> Any:
        try:
            yield b"first"
            yield b"second"
        finally:
            closed_in.append(asyncio.current_task())

    loop = qt_asyncio.start(qapp)
    loop.stop()
    stream = body()
    assert loop.run_until_complete(anext(stream)) == b"first"
    qt_asyncio.run_to_end(loop, asyncio.sleep(0))
    asyncio.set_event_loop(None)
    assert len(closed_in) == 1 and closed_in[0] is not None
    assert loop.is_closed()
