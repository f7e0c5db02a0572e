"""The engine's life as the runs see it: started on first use and shared, a crash while loading or while
answering reported with the log's last lines and what to do, restarted on the next use, stopped when idle, on
quit and when a start is cancelled. A stand-in server process plays llama.cpp's part (tests/support/fake_engine.py);
the real server is in tests/e2e/local_server."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import httpx
import pytest

from app.engine import process as process_module
from app.engine.adapter import BuiltinAdapter, EngineError
from app.engine.manager import BuiltinEngine, EngineStatus
from app.engine.process import EngineStartError
from app.engine.settings import EngineSettings
from orchestration.engine import ModelRequest
from orchestration.messages import UserMessage
from orchestration.providers.presets import provider_from_preset
from tests.support.adapter_runs import collect


def engine(settings: EngineSettings, tmp_path: Path, fake_python: str) -> BuiltinEngine:
    return BuiltinEngine(settings, tmp_path / "data", python=fake_python)


def gone(pid: int | None) -> bool:
    if pid is None:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_started_on_first_use_shared_by_concurrent_callers_and_stopped(
        engine_settings: EngineSettings, tmp_path: Path, fake_python: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_ENGINE_DELAY", "0.6")
    statuses: list[EngineStatus] = []
    built = engine(engine_settings, tmp_path, fake_python)
    built.add_listener(statuses.append)
    assert built.status.phase == "stopped" and built.pid is None  # nothing runs before a run needs it
    first, second = await asyncio.gather(built.ensure(), built.ensure("tiny"))
    assert first == second and first.startswith("http://127.0.0.1:")
    pid = built.pid
    assert [s.phase for s in statuses].count("ready") == 1  # one start for both
    assert any(s.phase == "starting" and "loading" in s.detail for s in statuses)  # progress while loading
    async with httpx.AsyncClient(trust_env=False) as client:
        response = await client.get(first + "/models")
    assert response.json()["data"][0]["id"] == "tiny"
    await built.aclose()
    assert gone(pid) and built.status.phase == "stopped"
    assert "fake engine: ok" in (tmp_path / "data" / "engine.log").read_text()  # the log is kept


async def test_a_crash_while_loading_says_why_and_what_to_do(
        engine_settings: EngineSettings, tmp_path: Path, fake_python: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_ENGINE_MODE", "crash")
    built = engine(engine_settings, tmp_path, fake_python)
    with pytest.raises(EngineStartError) as caught:
        await built.ensure()
    message = str(caught.value)
    assert "exit code 1" in message and "error loading model" in message
    assert "could not be loaded" in message and "engine.log" in message
    assert built.status.phase == "failed"
    monkeypatch.setenv("FAKE_ENGINE_MODE", "ok")  # fixed: the next use starts it afresh
    assert (await built.ensure()).startswith("http://")
    await built.aclose()


async def test_an_engine_that_never_answers_is_stopped_at_the_deadline(
        engine_settings: EngineSettings, tmp_path: Path, fake_python: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_ENGINE_MODE", "hang")
    built = engine(engine_settings, tmp_path, fake_python)
    built.start_timeout = 1.0
    with pytest.raises(EngineStartError, match="did not finish loading tiny within 1 s"):
        await built.ensure()
    assert built.pid is None
    await built.aclose()


async def test_cancelling_a_start_leaves_nothing_running(
        engine_settings: EngineSettings, tmp_path: Path, fake_python: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_ENGINE_MODE", "hang")
    pids: list[int | None] = []
    built = engine(engine_settings, tmp_path, fake_python)
    built.add_listener(lambda status: pids.append(built._process.pid if built._process else None))
    task = asyncio.ensure_future(built.ensure())
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    started = [p for p in pids if p]
    assert started and all(gone(p) for p in started)
    assert built.status.phase == "stopped"


async def test_a_crash_during_the_answer_is_an_engine_error_and_the_next_run_restarts_it(
        engine_settings: EngineSettings, tmp_path: Path, fake_python: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_ENGINE_MODE", "die_on_chat")
    built = engine(engine_settings, tmp_path, fake_python)
    config = provider_from_preset("builtin").model_copy(update={"max_attempts": 1})
    request = ModelRequest(model="tiny", messages=[UserMessage(content="hi")])
    outcome = await collect(BuiltinAdapter(built, config), request)
    assert isinstance(outcome.error, EngineError) and outcome.error.code == "engine_failed"
    assert "stopped unexpectedly (exit code 134)" in outcome.error.message
    assert "GGML_ASSERT" in outcome.error.message and "started again" in outcome.error.message
    monkeypatch.setenv("FAKE_ENGINE_MODE", "ok")
    again = await collect(BuiltinAdapter(built, config), request)
    assert again.text == "hello"
    await built.aclose()


async def test_an_engine_that_cannot_start_is_an_engine_error_for_the_run(
        engine_settings: EngineSettings, tmp_path: Path, fake_python: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_ENGINE_MODE", "crash")
    built = engine(engine_settings, tmp_path, fake_python)
    outcome = await collect(BuiltinAdapter(built, provider_from_preset("builtin")),
                            ModelRequest(model="tiny", messages=[UserMessage(content="hi")]))
    assert isinstance(outcome.error, EngineError)
    assert outcome.error.message.startswith("Built-in engine: the engine stopped while loading tiny")


async def test_an_unknown_model_is_an_engine_error_naming_the_known_ones(
        engine_settings: EngineSettings, tmp_path: Path, fake_python: str) -> None:
    built = engine(engine_settings, tmp_path, fake_python)
    outcome = await collect(BuiltinAdapter(built, provider_from_preset("builtin")),
                            ModelRequest(model="nope", messages=[UserMessage(content="hi")]))
    assert isinstance(outcome.error, EngineError)
    assert "no local model 'nope'" in outcome.error.message and "tiny" in outcome.error.message
    assert built.pid is None


async def test_stopped_after_the_idle_time(engine_settings: EngineSettings, tmp_path: Path, fake_python: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    engine_settings.idle_stop_minutes = 1 / 60  # one second
    built = engine(engine_settings, tmp_path, fake_python)
    await built.ensure()
    pid = built.pid
    for _ in range(60):
        if built.status.phase == "stopped":
            break
        await asyncio.sleep(0.1)
    assert built.status.phase == "stopped" and gone(pid)
    await built.aclose()


async def test_not_stopped_for_idleness_while_a_run_uses_it(engine_settings: EngineSettings, tmp_path: Path,
                                                            fake_python: str) -> None:
    engine_settings.idle_stop_minutes = 1 / 60
    built = engine(engine_settings, tmp_path, fake_python)
    async with built.in_use() as base_url:
        await asyncio.sleep(2.5)
        assert built.base_url == base_url  # still running
    await built.aclose()


async def test_a_port_taken_in_the_meantime_is_retried_on_another(
        engine_settings: EngineSettings, tmp_path: Path, fake_python: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    blocker = socket.socket()
    blocker.bind(("127.0.0.1", 0))
    blocker.listen()
    taken = blocker.getsockname()[1]
    ports = iter([taken])
    real_free_port = process_module.free_port
    monkeypatch.setattr(process_module, "free_port", lambda: next(ports, None) or real_free_port())
    built = engine(engine_settings, tmp_path, fake_python)
    try:
        url = await built.ensure()
    finally:
        blocker.close()
    assert f":{taken}/" not in url
    await built.aclose()
