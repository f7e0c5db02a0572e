"""Quitting the real ``parley`` window (File > Quit) in the middle of things, in a child process: while an answer
streams, while an MCP tool call runs on a server that stopped answering, and while a tool call waits for the user's
approval, and while the built-in engine (llama.cpp's server, a child process) answers. Each time the question is
saved, the answer so far is saved marked interrupted, nothing is logged or
printed as a warning, and when ``main`` returns no child process is left and nothing it opened is still open."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from app.paths import resolve_paths
from app.settings import ProviderSettings, Settings, save_settings
from app.storage import History
from tests.support.cli_process import REPO
from tests.support.loopback import LoopbackServer, Request, Response
from tests.support.openai_wire import stream_chunks, stream_response
from tools.mcp import McpServerSettings

QUESTION = "What time is it?"
STREAMED = "Otters use stone"  # two 8-character pieces, then the stream stalls
OFFSCREEN_NOISE = "This plugin does not support"  # the offscreen platform's notes on window-manager calls

CHILD = """
import json
import os
import sys
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from widgets.main_window import MainWindow

app = QApplication(sys.argv[:1])
case, marker = sys.argv[1], sys.argv[2]
state = {"sent": False}

def window():
    return next((w for w in app.topLevelWidgets() if isinstance(w, MainWindow)), None)

def reached(shown):
    if case == "stream":
        return "Otters use stone" in "".join(m.text for m in shown.chat_view.messages())
    if case == "tool":
        return os.path.exists(marker)  # the MCP server's tool is running (and has stopped answering)
    if case == "engine":  # the built-in engine's first words (or its answer, should it be that quick)
        return any(m.text for m in shown.chat_view.messages()[1:])
    return shown.approval.isVisible()

def step():
    shown = window()
    ready = case == "engine" or (shown is not None and shown.mcp_label.text() == "MCP: 1/1 running")
    if shown is None or not shown.composer.isEnabled() or not ready:
        QTimer.singleShot(50, step)
        return
    if not state["sent"]:
        state["sent"] = True
        shown.composer.input_widget().setPlainText(QUESTION)
        QTest.keyClick(shown.composer.input_widget(), Qt.Key.Key_Return)
    if not reached(shown):
        QTimer.singleShot(50, step)
        return
    print("REACHED", file=sys.stderr)
    shown.menus.quit.trigger()

QUESTION = sys.argv[3]
QTimer.singleShot(200, step)
QTimer.singleShot(60000, lambda: os._exit(3))  # hang guard: never quit

from tests.support.process_leftovers import children, open_files, opened_since

before = open_files()
from app.cli import main
code = main([])
print("CHILDREN", children(), file=sys.stderr)
print("LEFT OPEN", opened_since(before), file=sys.stderr)
sys.exit(code)
"""


def model(case: str):
    def answer(request: Request) -> Response | None:
        if request.path != "/v1/chat/completions":
            return None
        if case == "stream":
            return Response.sse(stream_chunks("Otters use stones to crack shells", piece=8)[:3], hang=True)
        if any(m["role"] == "tool" for m in request.json["messages"]):
            return stream_response("The tool answered.")
        tool = "t__freeze" if case == "tool" else "t__echo"
        arguments = {"marker": os.environ["QUIT_MARKER"]} if case == "tool" else {"text": "hi"}
        return Response.sse(stream_chunks(STREAMED, piece=8, calls=[("call_1", tool, arguments)]), done=True)

    return answer


@pytest.mark.parametrize("case", ["stream", "tool", "approval"])
def test_file_quit_midway_keeps_what_was_written_and_leaves_nothing_running(case: str, parley_home, tmp_path,
                                                                            monkeypatch) -> None:
    marker = tmp_path / "frozen"
    monkeypatch.setenv("QUIT_MARKER", str(marker))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    with LoopbackServer(handler=model(case)) as server:
        settings = Settings(providers=[ProviderSettings(id="local", base_url=server.url + "/v1", default_model="m")],
                            default_provider="local",
                            mcp_servers=[McpServerSettings(name="t", command=sys.executable, cwd=str(REPO),
                                                           args=["-m", "tests.support.mcp_test_server"])])
        settings.tools.approval = {"t__freeze": "allow", "t__echo": "ask"}
        save_settings(settings, resolve_paths().settings)
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TMPDIR": str(scratch)}
        done = subprocess.run([sys.executable, "-c", CHILD, case, str(marker), QUESTION], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=120)
    lines = [line for line in done.stderr.splitlines() if OFFSCREEN_NOISE not in line]
    assert done.returncode == 0, done.stderr
    assert lines == ["REACHED", "CHILDREN []", "LEFT OPEN []"], done.stderr
    assert not list(scratch.glob("parley-mcp-*"))
    with History.open(resolve_paths().database) as history:
        [conversation] = history.list_conversations()
        saved = [(m.role, m.content, m.status) for m in history.branch(conversation.id)]
    assert saved == [("user", QUESTION, "complete"), ("assistant", STREAMED, "interrupted")], json.dumps(saved)


def test_file_quit_while_the_builtin_engine_answers_stops_it(parley_home, tmp_path) -> None:
    """No provider: the built-in engine answers (the demo model). Quit at its first words: the engine's server
    process is gone when ``main`` returns, and the question and the answer so far are saved."""
    from app.engine import library

    if not library.builtin_usable(Settings().engine):
        pytest.skip("the built-in engine or its demo model is not installed here")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TMPDIR": str(scratch)}
    done = subprocess.run([sys.executable, "-c", CHILD, "engine", "", QUESTION], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=180)
    lines = [line for line in done.stderr.splitlines() if OFFSCREEN_NOISE not in line]
    assert done.returncode == 0, done.stderr
    assert lines == ["REACHED", "CHILDREN []", "LEFT OPEN []"], done.stderr
    with History.open(resolve_paths().database) as history:
        [conversation] = history.list_conversations()
        saved = [(m.role, m.content, m.status) for m in history.branch(conversation.id)]
    assert saved[0] == ("user", QUESTION, "complete") and len(saved) == 2, json.dumps(saved)
    role, content, status = saved[1]
    assert role == "assistant" and content.strip() and status in {"interrupted", "complete"}, json.dumps(saved)
