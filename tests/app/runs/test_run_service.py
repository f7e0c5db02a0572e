"""The run service over real HTTP on loopback and a real SQLite file: the user's message is saved before the
model is called, a stalled stream's partial answer is on disk within the checkpoint interval of its last
token (no event needed), a cancelled run keeps its partial answer, and bad setups are typed errors that write
nothing."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import pytest

from app.runs.run_service import (
    ChatSettings,
    MissingKeyError,
    MissingModelError,
    NoProviderError,
    RunService,
    ToolChoiceError,
    ToolSelectionError,
    UnknownProviderError,
    run,
)
from app.secrets import SecretStore, provider_entry
from app.settings import ProviderSettings, Settings
from app.storage import History
from app.storage.run_recorder import CHECKPOINT_INTERVAL_S
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.memory_keyring import MemoryKeyring
from tests.support.openai_wire import stream_chunks, stream_response

GUARD_S = 10.0  # hang guard, not a speed assertion
SCHEDULING_SLACK_S = 0.5  # the event loop and the disk, on a shared test machine


def settings_for(server: LoopbackServer) -> Settings:
    return Settings(providers=[ProviderSettings(id="local", base_url=server.url + "/v1", default_model="m")],
                    default_provider="local")


def rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute(sql).fetchall()


@pytest.fixture
def history(tmp_path: Path):
    opened = History.open(tmp_path / "history.db")
    yield opened
    opened.close()


def service(server: LoopbackServer) -> RunService:
    return RunService(settings_for(server), SecretStore(MemoryKeyring()))


def test_the_user_message_is_saved_before_the_model_is_called(loopback: LoopbackServer, history):
    seen_at_call: list[list[tuple]] = []

    def model(request: Request) -> Response:
        seen_at_call.append(rows(history.path, "SELECT role, content FROM messages ORDER BY id"))
        return stream_response("Hello there.")

    loopback.handler = model
    svc = service(loopback)
    prepared = svc.begin(svc.plan("Hi!", ChatSettings(tools="none")), history)
    events = []
    result = asyncio.run(run(prepared, events.append))
    assert result.finish_reason == "stop" and result.answer == "Hello there."
    assert seen_at_call == [[("user", "Hi!")]]
    assert [(m.role, m.content, m.status) for m in history.branch(prepared.conversation_id)] == [
        ("user", "Hi!", "complete"), ("assistant", "Hello there.", "complete")]
    assert events[0].type == "run_started" and events[-1].type == "done"


def test_a_stalled_stream_is_saved_within_the_interval_of_its_last_token(loopback: LoopbackServer, history):
    pieces = stream_chunks("Otters crack shells with stones", piece=8)[:3]  # the role, then two pieces
    loopback.always("POST", "/v1/chat/completions", Response.sse(pieces, hang=True))
    svc = service(loopback)
    prepared = svc.begin(svc.plan("How do otters eat?", ChatSettings(tools="none")), history)
    streamed: list[str] = []
    last_token_at: list[float] = []

    def subscriber(event) -> None:
        if event.type == "content":
            streamed.append(event.content)
            last_token_at.append(time.monotonic())

    async def scenario() -> tuple[float, str]:
        task = asyncio.ensure_future(run(prepared, subscriber))
        async with asyncio.timeout(GUARD_S):
            while True:
                saved = rows(history.path, "SELECT content FROM messages WHERE role = 'assistant' "
                                           "AND status = 'streaming'")
                if saved and saved[0][0] == "".join(streamed) and len(streamed) == 2:
                    found_at = time.monotonic()
                    break
                await asyncio.sleep(0.02)
        task.cancel()
        await task
        return found_at - last_token_at[-1], saved[0][0]

    waited, saved = asyncio.run(scenario())
    assert saved == "Otters crack she"
    assert waited <= CHECKPOINT_INTERVAL_S + SCHEDULING_SLACK_S


def test_cancel_keeps_the_partial_answer(loopback: LoopbackServer, history):
    pieces = stream_chunks("Otters crack shells with stones", piece=8)[:3]
    loopback.always("POST", "/v1/chat/completions", Response.sse(pieces, hang=True))
    svc = service(loopback)
    prepared = svc.begin(svc.plan("How do otters eat?", ChatSettings(tools="none")), history)
    events = []

    async def scenario():
        task = asyncio.ensure_future(run(prepared, events.append))
        async with asyncio.timeout(GUARD_S):
            while sum(e.type == "content" for e in events) < 2:  # noqa: ASYNC110 (the run feeds the list)
                await asyncio.sleep(0.01)
        task.cancel()
        return await task

    result = asyncio.run(scenario())
    assert result.finish_reason == "cancelled" and events[-1].type == "done"
    user, answer = history.branch(prepared.conversation_id)
    assert (user.content, answer.content, answer.status) == ("How do otters eat?", "Otters crack she", "interrupted")


def test_the_key_is_sent_and_hidden_from_the_subscriber(loopback: LoopbackServer, history):
    key = "sk-test-not-real-run-service-42"
    loopback.always("POST", "/v1/chat/completions", stream_response(f"Your key is {key}."))
    store = SecretStore(MemoryKeyring())
    store.store(provider_entry("local"), key)
    svc = RunService(settings_for(loopback), store)
    events = []
    prepared = svc.begin(svc.plan("echo my key", ChatSettings(tools="none")), history)
    asyncio.run(run(prepared, events.append))
    assert loopback.requests[0].header("authorization") == f"Bearer {key}"
    shown = "".join(e.content for e in events if e.type == "content")
    assert key not in shown and "Your key is" in shown
    assert key not in history.branch(prepared.conversation_id)[1].content


@pytest.mark.parametrize(("chat", "error"), [
    (ChatSettings(provider="nope"), UnknownProviderError),
    (ChatSettings(tools="no_such_tool"), ToolSelectionError),
    (ChatSettings(tool_choice="web_search", tools="calculate"), ToolChoiceError),
])
def test_bad_setups_are_typed_and_write_nothing(loopback: LoopbackServer, history, chat, error):
    with pytest.raises(error):
        service(loopback).plan("hi", chat)
    assert rows(history.path, "SELECT COUNT(*) FROM messages") == [(0,)]


def test_provider_problems_name_the_provider():
    empty = RunService(Settings(), SecretStore(MemoryKeyring()))
    with pytest.raises(NoProviderError):
        empty.plan("hi", ChatSettings())
    hosted = RunService(Settings(providers=[ProviderSettings(id="oa", preset="openai",
                                                             base_url="https://api.openai.com/v1")],
                                 default_provider="oa"), SecretStore(MemoryKeyring()))
    with pytest.raises(MissingKeyError) as missing:
        hosted.plan("hi", ChatSettings())
    assert missing.value.provider == "oa"
    with pytest.raises(MissingModelError):
        hosted.plan("hi", ChatSettings(api_key="k" * 20))
