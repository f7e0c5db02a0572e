"""Running ``parley`` as a real process for end-to-end tests (the environment, PARLEY_HOME included, is inherited)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def parley_command() -> list[str]:
    script = Path(sys.executable).with_name("parley")
    return [str(script)] if script.exists() else [sys.executable, "-m", "app.cli.entry"]


def run_parley(*args: str, stdin: str | None = None, timeout: float = 60, env: dict[str, str] | None = None,
               inherit_env: bool = True) -> subprocess.CompletedProcess[str]:
    """Run parley; ``env`` is added to this process's environment, or is the whole of it with
    ``inherit_env=False``."""
    environment = {**os.environ, **(env or {})} if inherit_env else dict(env or {})
    return subprocess.run([*parley_command(), *args], input=stdin, capture_output=True, text=True, timeout=timeout,
                          cwd=REPO, env=environment)
