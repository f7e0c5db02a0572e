"""Every ``parley`` command whose standard output is closed by its reader (``parley usage --json | head``) exits
quietly with the status a shell reports for SIGPIPE: no traceback, no complaint at exit.

Each command runs as a real process whose standard output is a pipe with its reading end already closed, so the
first write fails the same way however much the command prints or buffers.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli.closed_output import EXIT_CLOSED_OUTPUT
from app.paths import resolve_paths
from app.storage import History
from tests.app.storage.test_history import record_answer
from tests.support.loopback import LoopbackServer, Response
from tests.support.openai_wire import stream_chunks

REPO = Path(__file__).resolve().parents[3]
GUARD_S = 60  # hang guard, not a speed assertion


def parley_to_closed_pipe(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    reader, writer = os.pipe()
    os.close(reader)  # the reader has gone before the first byte is written
    env = {**os.environ, "PYTHONPATH": str(REPO), "PARLEY_HOME": str(home)}
    try:
        return subprocess.run([sys.executable, "-m", "app.cli.entry", *argv], cwd=REPO, env=env, stdout=writer,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True, timeout=GUARD_S)
    finally:
        os.close(writer)


@pytest.fixture
def saved(parley_home):
    with History.open(resolve_paths().database) as history:
        cid = history.create_conversation("Egg arithmetic")
        record_answer(history, cid, "How many eggs for three cakes?", "Twelve eggs.", with_tool=True)
    return cid


@pytest.mark.parametrize("argv", [
    ["usage", "--json"], ["usage"], ["history", "list"], ["history", "list", "--json"], ["history", "show", "{id}"],
    ["search", "eggs"], ["export", "{id}"], ["export", "{id}", "--format", "json"], ["tools", "list"],
    ["tools", "list", "--json"], ["--version"],
], ids=" ".join)
def test_a_command_cut_off_by_a_closed_pipe_exits_quietly(parley_home, saved, argv):
    done = parley_to_closed_pipe(parley_home, *(word.format(id=saved) for word in argv))
    assert (done.returncode, done.stderr) == (EXIT_CLOSED_OUTPUT, "")


@pytest.mark.parametrize("argv", [["--help"], ["history", "--help"]], ids=" ".join)
def test_help_to_a_closed_pipe_is_quiet(parley_home, argv):
    """argparse's help writer ignores an OSError itself, so help ends with its usual status, quietly."""
    done = parley_to_closed_pipe(parley_home, *argv)
    assert (done.returncode, done.stderr) == (0, "")


def test_models_and_chat_cut_off_by_a_closed_pipe_exit_quietly(parley_home, loopback: LoopbackServer):
    loopback.always("GET", "/v1/models", Response.json({"object": "list", "data": [
        {"id": f"model-{i}", "object": "model"} for i in range(3)]}))
    loopback.always("POST", "/v1/chat/completions", Response.sse(stream_chunks("Otters hold hands", piece=4),
                                                                 done=True))
    url = loopback.url + "/v1"
    models = parley_to_closed_pipe(parley_home, "models", "--base-url", url)
    assert (models.returncode, models.stderr) == (EXIT_CLOSED_OUTPUT, "")
    chat = parley_to_closed_pipe(parley_home, "chat", "--base-url", url, "--model", "m", "--no-reasoning",
                                 "Tell me about otters")
    assert (chat.returncode, chat.stderr) == (EXIT_CLOSED_OUTPUT, "")
    events = parley_to_closed_pipe(parley_home, "chat", "--base-url", url, "--model", "m", "--json", "Again")
    assert (events.returncode, events.stderr) == (EXIT_CLOSED_OUTPUT, "")
    with History.open(resolve_paths().database) as history:  # what the user wrote is kept
        firsts = sorted(history.branch(listed.id)[0].content for listed in history.conversation_list())
    assert firsts == ["Again", "Tell me about otters"]


def test_a_broken_pipe_that_is_not_standard_output_is_raised_on(monkeypatch):
    """A tool server's pipe or a socket breaking is a failure to see, not a reader that stopped reading."""
    from app.cli import entry

    def broken(args):
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(entry, "_dispatch", broken)
    with pytest.raises(BrokenPipeError):
        entry.main(["usage"])
