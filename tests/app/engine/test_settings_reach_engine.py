"""Settings changed while the engine runs reach it: context, threads and GPU layers restart an idle engine at
once with the same model, wait for the run using it to end (its next model call still gets the old server), and a
new idle stop applies to the running engine's idle watch. A stand-in server plays llama.cpp (its command line is
what the child was started with); the real server is in tests/e2e/local_server/test_engine_settings.py."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from app.engine.manager import BuiltinEngine
from app.engine.settings import EngineSettings


def command_line(pid: int | None) -> list[str]:
    assert pid is not None
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")


def flag(pid: int | None, name: str) -> str:
    args = command_line(pid)
    return args[args.index(name) + 1]


async def until(predicate, seconds: float = 15.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_an_idle_engine_restarts_at_once_with_the_new_context(
        engine_settings: EngineSettings, tmp_path: Path, fake_python: str) -> None:
    engine = BuiltinEngine(engine_settings, tmp_path / "data", python=fake_python)
    try:
        await engine.ensure()
        first = engine.pid
        assert flag(first, "--n_ctx") == "4096"
        outcome = engine.apply_settings(engine_settings.model_copy(update={"context_size": 2048, "threads": 1}))
        assert outcome == "restarting"
        await until(lambda: engine.pid not in (None, first) and engine.status.phase == "ready")
        assert flag(engine.pid, "--n_ctx") == "2048" and flag(engine.pid, "--n_threads") == "1"
        assert engine.running_model == "tiny" and not engine.pending_restart
        second = engine.pid
        await engine.ensure()  # the next request is served by the restarted engine, not another start
        assert engine.pid == second
    finally:
        await engine.aclose()


async def test_a_run_in_progress_keeps_its_engine_and_the_restart_follows_it(
        engine_settings: EngineSettings, tmp_path: Path, fake_python: str) -> None:
    engine = BuiltinEngine(engine_settings, tmp_path / "data", python=fake_python)
    try:
        engine.begin_run()
        await engine.ensure()
        first = engine.pid
        assert engine.apply_settings(engine_settings.model_copy(update={"context_size": 1024})) == "after_run"
        assert engine.pending_restart
        async with engine.in_use():  # the run's next model call (a tool loop): the same server
            assert engine.pid == first
        await asyncio.sleep(0.3)
        assert engine.pid == first and flag(first, "--n_ctx") == "4096"
        engine.end_run()
        await until(lambda: engine.pid not in (None, first) and engine.status.phase == "ready")
        assert flag(engine.pid, "--n_ctx") == "1024" and not engine.pending_restart
    finally:
        await engine.aclose()


async def test_a_change_the_server_does_not_read_restarts_nothing(
        engine_settings: EngineSettings, tmp_path: Path, fake_python: str) -> None:
    engine = BuiltinEngine(engine_settings, tmp_path / "data", python=fake_python)
    assert engine.apply_settings(engine_settings.model_copy(update={"context_size": 2048})) == "next_start"
    try:
        await engine.ensure()
        assert flag(engine.pid, "--n_ctx") == "2048"  # not running: the next start used it
        pid = engine.pid
        assert engine.apply_settings(engine.settings.model_copy(update={"idle_stop_minutes": 30.0})) == "at_once"
        await asyncio.sleep(0.3)
        assert engine.pid == pid and engine.status.phase == "ready"
    finally:
        await engine.aclose()


async def test_a_shorter_idle_stop_applies_to_the_running_engine(
        engine_settings: EngineSettings, tmp_path: Path, fake_python: str) -> None:
    engine = BuiltinEngine(engine_settings.model_copy(update={"idle_stop_minutes": 10.0}), tmp_path / "data",
                           python=fake_python)
    try:
        await engine.ensure()
        assert engine.apply_settings(engine.settings.model_copy(update={"idle_stop_minutes": 0.005})) == "at_once"
        await until(lambda: engine.status.phase == "stopped", 5.0)  # 0.3 s, not the 10 minutes it started with
        assert engine.pid is None
    finally:
        await engine.aclose()
