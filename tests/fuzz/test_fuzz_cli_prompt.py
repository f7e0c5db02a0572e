"""Fuzzing `parley chat`'s prompt as a real process: any bytes as the argument or on standard input either run
(exit 0, the prompt saved exactly) or are refused as bad usage (exit 2, a one-line message), never a traceback.
Both ways Python reads standard input are tried: with ``surrogateescape`` (a C or UTF-8 locale) and strict."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from datetime import timedelta

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from app.paths import resolve_paths
from app.storage import History
from tests.support.cli_process import parley_command
from tests.support.hypothesis_profiles import budget
from tests.support.loopback import LoopbackServer
from tests.support.openai_wire import stream_response

STDIN_MODES = [{}, {"PYTHONIOENCODING": "utf-8:strict"}]
prompts = st.one_of(
    st.binary(min_size=1, max_size=24),
    st.text(min_size=1, max_size=16).map(str.encode),
    st.tuples(st.text(max_size=8), st.binary(min_size=1, max_size=3), st.text(max_size=8)).map(
        lambda parts: parts[0].encode() + parts[1] + parts[2].encode()),
)


@pytest.fixture(scope="module")
def model() -> Iterator[LoopbackServer]:
    with LoopbackServer(handler=lambda request: stream_response("Fine.")) as server:
        yield server


def _chat(model: LoopbackServer, prompt: bytes, as_argument: bool, env: dict[str, str]) -> tuple[int, str]:
    command = [*parley_command(), "chat", "--kind", "openai", "--base-url", model.url + "/v1", "--model", "m",
               "--tools", "none"]
    if as_argument:
        command.append(prompt)  # type: ignore[arg-type]  # bytes on purpose: argv is bytes on Linux
    proc = subprocess.run(command, input=None if as_argument else prompt, capture_output=True, timeout=60,
                          env={**os.environ, **env})
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def _last_user_message() -> str:
    with History.open(resolve_paths().database) as history:
        return history.db.execute("SELECT content FROM messages WHERE role = 'user' ORDER BY id DESC").fetchone()[0]


@budget(0.02, minimum=2, deadline=timedelta(seconds=60))
@given(prompts, st.booleans(), st.sampled_from(STDIN_MODES))
@example(b"caf\xe9 au lait", True, {})
@example(b"caf\xe9 au lait", False, {})
@example(b"caf\xe9 au lait", False, {"PYTHONIOENCODING": "utf-8:strict"})
def test_any_prompt_runs_and_is_saved_or_is_refused_as_usage(model, prompt, as_argument, env) -> None:
    if as_argument:
        prompt = prompt.replace(b"\x00", b"")  # an argument cannot hold NUL
    code, stderr = _chat(model, prompt, as_argument, env)
    assert "Traceback" not in stderr
    try:
        text = prompt.decode("utf-8")
    except UnicodeDecodeError:
        assert code == 2, stderr
        assert "is not valid UTF-8 text" in stderr and len(stderr.strip().splitlines()) == 1
        return
    if not text.strip():
        assert code == 2 and "the prompt is empty" in stderr
        return
    assert code == 0, stderr
    assert _last_user_message() == text
