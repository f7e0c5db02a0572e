"""The real window on a loopback model that answers from a queue, for tests of the message actions (pytest-qt,
qasync, a real SQLite file): open it, wait for a run to settle, read the stored branch."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.settings import ProviderSettings, Settings, save_settings
from app.storage import History
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_chunks, stream_response

GUARD_S = 10.0  # hang guard, not a speed assertion
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


class Model:
    """Answers from a queue; an answer of None, or an empty queue, is an HTTP 500 (so the transport's retries
    fail too); "HANG:text" streams text and then stalls."""

    def __init__(self, server: LoopbackServer) -> None:
        self.answers: list[str | None] = []
        self.sent: list[dict[str, Any]] = []
        server.handler = self

    def __call__(self, request: Request) -> Response | None:
        if request.path != "/v1/chat/completions":
            return None
        self.sent.append(json.loads(request.body))
        answer = self.answers.pop(0) if self.answers else None
        if answer is None:
            return Response.json({"error": {"message": "the model is overloaded"}}, status=500)
        if answer.startswith("HANG:"):
            return Response.sse(stream_chunks(answer[5:], piece=100)[:2], hang=True)
        return stream_response(answer)


def configure(loopback: LoopbackServer) -> Model:
    """Settings with two providers on ``loopback`` (local · m, the default, and other · big)."""
    providers = [ProviderSettings(id="local", base_url=loopback.url + "/v1", default_model="m"),
                 ProviderSettings(id="other", base_url=loopback.url + "/v1", default_model="big")]
    save_settings(Settings(providers=providers, default_provider="local"), resolve_paths().settings)
    return Model(loopback)


@pytest.fixture(name="model")
def model_fixture(loopback: LoopbackServer) -> Model:
    """The ``model`` fixture: ``configure`` on the test's loopback server (import it into a test module)."""
    return configure(loopback)


def open_window(qtbot: Any, qasync_loop: Any) -> tuple[Any, Any]:
    """``(window, session)`` on the running qasync loop, shown and active."""
    async def open_on_the_loop() -> tuple[Any, Any]:
        return build_window(secrets=SecretStore(MemoryKeyring()), discover=False)

    window, session = qasync_loop.run_until_complete(open_on_the_loop())
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=3000)
    return window, session


def close_window(qasync_loop: Any, session: Any) -> None:
    qasync_loop.run_until_complete(asyncio.wait_for(session.aclose(), GUARD_S))
    session.history.close()


@pytest.fixture(name="app")
def app_fixture(qtbot: Any, qasync_loop: Any, model: Model) -> Iterator[tuple[Any, Any]]:
    """The ``app`` fixture: ``(window, session)`` from ``open_window`` on the test's ``model``, closed after the
    test (import it into a test module together with ``model_fixture``)."""
    window, session = open_window(qtbot, qasync_loop)
    yield window, session
    close_window(qasync_loop, session)


def settle(qasync_loop, session) -> None:
    """Wait until the run started has ended (its answer saved)."""
    async def until_done() -> None:
        async with asyncio.timeout(GUARD_S):
            while session.controller.running:  # noqa: ASYNC110 (the run is a task on this loop)
                await asyncio.sleep(0.02)
            await asyncio.sleep(0.05)

    qasync_loop.run_until_complete(until_done())


def tree(conversation_id: int) -> list[tuple[str, str]]:
    """The current branch as stored: (role, content)."""
    with History.open(resolve_paths().database) as history:
        return [(m.role, m.content) for m in history.branch(conversation_id)]


def streamed(qasync_loop: Any, window: Any, text: str) -> None:
    """Wait until the chat shows ``text`` (a stream that then stalls)."""
    async def until_shown() -> None:
        async with asyncio.timeout(GUARD_S):
            while text not in "".join(m.text for m in window.chat_view.messages()):  # noqa: ASYNC110
                await asyncio.sleep(0.02)

    qasync_loop.run_until_complete(until_shown())


def stopped_answer(qtbot: Any, qasync_loop: Any, window: Any, session: Any, model: Model, question: str,
                   partial: str) -> None:
    """Ask ``question``, let ``partial`` stream and stall, then press Esc: the answer is stopped and saved."""
    model.answers.append(f"HANG:{partial}")
    session.send(question)
    streamed(qasync_loop, window, partial)
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Escape)
    settle(qasync_loop, session)

