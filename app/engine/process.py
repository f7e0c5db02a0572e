"""One llama.cpp server (``python -m llama_cpp.server``) run as Parley's child, on loopback only.

The child is started through ``tools/mcp/child_guard`` (Linux: the kernel kills it when Parley dies, even by
``kill -9``) in its own process group, on a free port on 127.0.0.1, with its output appended to a log file
that is kept (the last lines are also held in memory to explain a crash). ``wait_ready`` polls the model list
until the model is loaded, reporting progress, and notices a child that exits meanwhile. Nothing here blocks:
starting is a fork/exec, every wait is an ``asyncio.sleep``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.engine.settings import START_TIMEOUT_S
from orchestration.lean_imports import import_httpx
from tools.mcp import child_guard

LOOPBACK = "127.0.0.1"
POLL_INTERVAL_S = 0.25  # between health checks while the model loads
STOP_GRACE_S = 5.0  # after SIGTERM, before the process group is killed
LOG_TAIL_LINES = 40  # lines of the engine's output quoted when it fails
MAX_LOG_BYTES = 5 * 1024 * 1024  # a longer log is started afresh when the engine starts


class EngineStartError(Exception):
    """The engine could not be started or died while loading; the message says why and what to do."""


@dataclass(frozen=True)
class LaunchSpec:
    model_path: Path
    model_name: str
    context_size: int
    threads: int
    gpu_layers: int


def free_port(host: str = LOOPBACK) -> int:
    """A port nothing listens on right now (the kernel's pick); a race with another program is caught by the
    child failing to bind, which ``EngineProcess`` retries once with a new port."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def server_command(spec: LaunchSpec, port: int, python: str = sys.executable) -> list[str]:
    return [python, "-m", "llama_cpp.server", "--model", str(spec.model_path), "--model_alias", spec.model_name,
            "--host", LOOPBACK, "--port", str(port), "--n_ctx", str(spec.context_size),
            "--n_threads", str(spec.threads), "--n_threads_batch", str(spec.threads),
            "--n_gpu_layers", str(spec.gpu_layers)]


def engine_environment() -> dict[str, str]:
    """The server's environment: Parley's, with output unbuffered (the log is current when it fails) and
    llama.cpp's OpenMP threads waiting passively unless the user chose otherwise: spinning threads cost a
    shared CPU dearly (on a busy 2-core machine 2 spinning threads made SmolLM2 about 15 times slower)."""
    return {"OMP_WAIT_POLICY": "PASSIVE", **os.environ, "PYTHONUNBUFFERED": "1"}


def read_tail(path: Path, lines: int = LOG_TAIL_LINES, *, since: int = 0) -> str:
    """The last ``lines`` lines of ``path`` written after byte ``since``."""
    try:
        with path.open("rb") as handle:
            handle.seek(since)
            data = handle.read()[-64_000:]
    except OSError:
        return ""
    return "\n".join(data.decode("utf-8", "replace").splitlines()[-lines:])


class EngineProcess:
    """A started server; ``base_url`` is its OpenAI-compatible root (``http://127.0.0.1:PORT/v1``)."""

    def __init__(self, spec: LaunchSpec, log_path: Path, *, python: str = sys.executable) -> None:
        self.spec = spec
        self.log_path = log_path
        self.python = python
        self.port = 0
        self.started_at = 0.0
        self.ready_after: float | None = None  # seconds from start to the model answering
        self._proc: subprocess.Popen[bytes] | None = None
        self._pid_file: str | None = None
        self._log_start = 0

    @property
    def base_url(self) -> str:
        return f"http://{LOOPBACK}:{self.port}/v1"

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def exit_code(self) -> int | None:
        return None if self._proc is None else self._proc.poll()

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        """The end of this run's output."""
        return read_tail(self.log_path, lines, since=self._log_start)

    def launch(self) -> None:
        """Fork the server (returns at once). Raises EngineStartError when it cannot be started at all."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            if self.log_path.stat().st_size > MAX_LOG_BYTES:
                self.log_path.unlink()
        self.port = free_port()
        command = server_command(self.spec, self.port, self.python)
        program, args = command[0], command[1:]
        if child_guard.available():
            handle, self._pid_file = tempfile.mkstemp(prefix="parley-engine-", suffix=".pid")
            os.close(handle)
            program, args = child_guard.guarded(program, args, pid_file=self._pid_file, cwd=None, path=None)
        try:
            log = self.log_path.open("ab")
        except OSError as exc:
            raise EngineStartError(f"cannot write the engine's log {self.log_path}: {exc.strerror or exc}") from None
        with log:
            self._log_start = log.tell()
            log.write(f"--- parley: starting {' '.join(command)}\n".encode())
            log.flush()
            try:
                self._proc = subprocess.Popen([program, *args], stdin=subprocess.DEVNULL, stdout=log,
                                              stderr=subprocess.STDOUT, start_new_session=True,
                                              env=engine_environment())
            except OSError as exc:
                raise EngineStartError(f"cannot start the engine ({program}): {exc.strerror or exc}") from None
        self.started_at = time.monotonic()

    async def wait_ready(self, progress: Callable[[float], None] | None = None,
                         limit_s: float = START_TIMEOUT_S) -> None:
        """Return once the server lists its model; raises EngineStartError when it exits or takes too long."""
        import asyncio  # with the window's loop, not at start (app/session/qt_asyncio.py)

        import_httpx()  # with the engine, not at start: a window that sends nothing never loads httpx
        import httpx

        deadline = self.started_at + limit_s
        async with httpx.AsyncClient(timeout=2.0, trust_env=False) as client:
            while True:
                code = self.exit_code()
                if code is not None:
                    raise EngineStartError(self._died_message(code))
                try:
                    response = await client.get(f"{self.base_url}/models")
                    if response.status_code == 200:
                        self.ready_after = time.monotonic() - self.started_at
                        return
                except httpx.HTTPError:
                    pass  # not listening yet: the model is still loading
                now = time.monotonic()
                if now > deadline:
                    await self.stop()
                    raise EngineStartError(
                        f"the engine did not finish loading {self.spec.model_name} within {limit_s:.0f} s; it was "
                        f"stopped. Its log ({self.log_path}) ends with:\n{self.log_tail(10)}")
                if progress is not None:
                    progress(now - self.started_at)
                await asyncio.sleep(POLL_INTERVAL_S)

    def port_taken(self) -> bool:
        tail = self.log_tail()
        return "address already in use" in tail.lower() or "errno 98" in tail.lower()

    def _died_message(self, code: int) -> str:
        tail = self.log_tail(12)
        hint = ""
        lowered = tail.lower()
        if "no module named" in lowered:
            hint = (" The engine is not installed: run `make run` (or scripts/bootstrap.sh) to build it, or "
                    "`pip install 'llama-cpp-python[server]'`.")
        elif "failed to load model" in lowered or "error loading model" in lowered:
            hint = " The model file could not be loaded: it may be truncated or of a kind this llama.cpp is too old " \
                   "for; download it again or pick another model (`parley local list`)."
        elif "out of memory" in lowered or "failed to allocate" in lowered or code == -signal.SIGKILL:
            hint = " The machine may not have enough free memory for this model: pick a smaller one or lower " \
                   "engine.context_size."
        return (f"the engine stopped while loading {self.spec.model_name} (exit code {code}).{hint} Its log "
                f"({self.log_path}) ends with:\n{tail}")

    async def stop(self) -> None:
        """SIGTERM the server, then SIGKILL its process group after ``STOP_GRACE_S``; gone already is fine."""
        import asyncio

        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)
            deadline = time.monotonic() + STOP_GRACE_S
            # a Popen's exit cannot be awaited without a thread; polling it briefly is enough
            while proc.poll() is None and time.monotonic() < deadline:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
        child_guard.kill_group(proc.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=1)
        self._cleanup()

    def kill_now(self) -> None:
        """Synchronous last resort (interpreter exit): SIGKILL the process group."""
        if self._proc is not None and self._proc.poll() is None:
            child_guard.kill_group(self._proc.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=1)
        self._cleanup()

    def _cleanup(self) -> None:
        if self._pid_file:
            with contextlib.suppress(OSError):
                os.unlink(self._pid_file)
            self._pid_file = None
