"""``parley`` started as a user starts it, timed from outside, beside a bare Qt window in the same run.

What it measures (issue 17), each start a fresh process of the installed entry point (``.venv/bin/parley``)
with a data folder made for the run and a generated history of 1,000 and of 10,000 conversations:

- the window: from just before the process is started to its first painted frame, and to "ready" (the
  conversation list filled and the composer accepting typing), read from the timing hook in
  ``app/session/startup_trace.py`` (``PARLEY_STARTUP_TRACE``); the bare window (a QMainWindow holding a QTextBrowser,
  the same hook written out) is started in turn with it, A B A B, and each ratio is taken pair by pair;
- memory: the resident set (VmRSS) of the idle window 10 s after its start, beside the bare window's; and
  after use: the window, with a provider set to a loopback server, opens a 200-message conversation (a real
  click on the list's top row) and sends a message (real key presses), the server streams a 2,000-token answer,
  and VmRSS is read 1 s after the answer ends (``PARLEY_STARTUP_DRIVE``, app/session/startup_drive.py);
- the conversation list with 10,000 rows: the time to fill it and the scroll steps (a page per step, each
  step set and repainted synchronously), beside a QListWidget with an item per row (the list before issue 17);
  and the window's list as it shows the 10,000-conversation history: the ids in order at once, each block of
  rows read when first painted (the steps include those reads);
- the CLI: ``parley --version`` and ``parley tools list`` against ``python -c "import json"`` (target: at most
  twice that plus 100 ms), and ``parley chat`` to the first byte of its request on a loopback server.

    python -m bench.startup [--repeat R] [--sizes 1000,10000] [--no-xvfb]

Each command is started once first, unmeasured, so the OS file cache is warm and Python's bytecode cache is
written (``PYTHONDONTWRITEBYTECODE`` is dropped from the children's environment), as for an installed app.
Runs under its own Xvfb (``Xvfb -displayfd``) unless ``--no-xvfb`` is given, when it uses ``DISPLAY`` or
``QT_QPA_PLATFORM`` as set. Prints one JSON object (medians over R pairs). The machine's load moves absolute
times; quote the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
PARLEY = VENV_BIN / "parley"
IDLE_RSS_AFTER_S = 10.0
START_TIMEOUT_S = 60.0
SCROLL_STALL_TARGET_MS = 16.0

BARE_WINDOW = r"""
import os, sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow, QTextBrowser
def mark(event):
    with open(os.environ["PARLEY_STARTUP_TRACE"], "a") as trace:
        trace.write(f"{event} {time.monotonic():.6f}\n")
app = QApplication(sys.argv[:1])
window = QMainWindow()
window.setCentralWidget(QTextBrowser())
class Watch(QObject):
    seen = False
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Type.Paint and not self.seen:
            self.seen = True
            def painted():
                mark("painted"); mark("ready")
                QTimer.singleShot(int(float(os.environ["PARLEY_STARTUP_QUIT_AFTER"]) * 1000), app.quit)
            QTimer.singleShot(0, painted)
        return False
watch = Watch()
window.installEventFilter(watch)
window.resize(1280, 820)
window.show()
app.exec()
"""

SCROLL_LIST = r"""
import json, sys, time
from PySide6.QtWidgets import QApplication, QListWidget, QListWidgetItem
app = QApplication(sys.argv[:1])
from widgets.conversation_delegate import DETAIL_ROLE, PINNED_ROLE, TITLE_ROLE, ConversationDelegate
from widgets.conversation_list import ID_ROLE, ConversationItem, ConversationList
from widgets.conversation_model import when
from widgets.safe_text import plain_tooltip, visible_controls
count = int(sys.argv[1])
now = int(time.time() * 1000)
items = [ConversationItem(i, f"Conversation {i} about topic {i % 37}", now - i * 60_000, pinned=i % 500 == 0)
         for i in range(1, count + 1)]

def widget_per_row_fill(view):
    # the baseline: one QListWidgetItem per conversation, every role set up front (the list before issue 17)
    view.clear()
    for item in sorted(items, key=lambda c: (not c.pinned, -c.updated_at)):
        title = visible_controls(item.title) or "Untitled"
        row = QListWidgetItem(f"{'Pinned: ' if item.pinned else ''}{title}\n{when(item.updated_at)}")
        row.setData(ID_ROLE, item.id)
        row.setData(TITLE_ROLE, title)
        row.setData(PINNED_ROLE, item.pinned)
        row.setData(DETAIL_ROLE, when(item.updated_at))
        row.setToolTip(plain_tooltip(item.title))
        view.addItem(row)

def measure(widget, view, fill):
    widget.resize(280, 800)
    widget.show()
    app.processEvents()
    start = time.perf_counter()
    fill()
    widget.repaint()
    fill_ms = (time.perf_counter() - start) * 1000
    bar = view.verticalScrollBar()
    steps = []
    value = 0
    while value < bar.maximum():
        value = min(bar.maximum(), value + bar.pageStep())
        start = time.perf_counter()
        bar.setValue(value)
        view.viewport().repaint()
        app.processEvents()
        steps.append((time.perf_counter() - start) * 1000)
    steps.sort()
    widget.hide()
    return {"fill_ms": round(fill_ms, 1), "scroll_steps": len(steps), "scroll_step_max_ms": round(steps[-1], 2),
            "scroll_step_p99_ms": round(steps[int(len(steps) * 0.99)], 2),
            "scroll_step_median_ms": round(steps[len(steps) // 2], 2),
            "steps_over_16ms": sum(1 for step in steps if step > 16)}

warm_up = QListWidget()  # fonts, glyphs and the style warmed by a throwaway list, so neither measured list pays
warm_up.setItemDelegate(ConversationDelegate(warm_up))
all_items, items = items, items[:2000]
measure(warm_up, warm_up, lambda: widget_per_row_fill(warm_up))
items = all_items
model_view = ConversationList()
baseline = QListWidget()
baseline.setItemDelegate(ConversationDelegate(baseline))
result = {"rows": count,
          "parley_model_view": measure(model_view, model_view.list, lambda: model_view.set_conversations(items)),
          "baseline_widget_items": measure(baseline, baseline, lambda: widget_per_row_fill(baseline))}
if len(sys.argv) > 2:  # the window's list from a real history: the ids at once, each block of rows when scrolled to
    from pathlib import Path
    from app.session.conversation_pages import show_conversations
    from app.storage import History
    history = History.open(Path(sys.argv[2]))
    paged = ConversationList()
    result["parley_window_list"] = measure(paged, paged.list, lambda: show_conversations(
        paged, history, lambda _cid: False, None, sys.stderr.write))
    result["parley_window_list"]["rows"] = paged.model.rowCount()
    result["parley_window_list"]["rows_read"] = sum(1 for cid in paged.ids_in_order() if paged.model.listed(cid))
print(json.dumps(result))
"""

SSE_ANSWER = (
    b'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":'
    b'{"role":"assistant","content":"ok"},"finish_reason":null}]}\n\n'
    b'data: {"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},'
    b'"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n")


SSE_END = SSE_ANSWER[SSE_ANSWER.index(b"\n\n") + 2:]  # the finish chunk and [DONE]
ANSWER_TOKENS = 2_000
LONG_CONVERSATION_MESSAGES = 200
SETTLE_AFTER_ANSWER_S = 1.0


def _answer_tokens(count: int) -> list[str]:
    """``count`` tokens of a markdown answer: paragraphs, a list and a fenced code block, repeating."""
    pattern = ("The ", "answer ", "goes ", "on ", "about ", "**memory** ", "and ", "`start-up` ", "time", ".\n\n",
               "- ", "one ", "item", "\n", "- ", "another ", "item", "\n\n", "```python\n", "def ", "f(x):", "\n",
               "    return ", "x ", "* 2", "\n```\n\n")
    return [pattern[i % len(pattern)] for i in range(count)]


def _sse_chunk(content: str) -> bytes:
    delta = json.dumps({"id": "c", "object": "chat.completion.chunk", "model": "m",
                        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}]})
    return b"data: " + delta.encode() + b"\n\n"


def _write_history(home: Path, body: str) -> None:
    """Runs ``body`` (Python lines using ``history``, the History under ``home``, open) in a child process, so
    the benchmark itself never imports the app it times; the history is closed after it."""
    env = {**os.environ, "PARLEY_HOME": str(home), "PYTHONPATH": str(REPO)}
    script = (
        "from app.paths import resolve_paths\n"
        "from app.storage import History\n"
        "history = History.open(resolve_paths().database)\n"
        + body +
        "history.close()\n")
    subprocess.run([sys.executable, "-c", script], env=env, check=True, cwd=REPO)


def fill_long_conversation(home: Path, messages: int) -> None:
    """One more conversation (the newest, so the list's top row) of ``messages`` messages: questions and
    markdown answers of about 1,500 characters."""
    _write_history(home, (
        "c = history.create_conversation('A long conversation')\n"
        f"for i in range({messages} // 2):\n"
        "    history.add_message(c, 'user', f'Question {i}: how does part {i} of the system work?')\n"
        "    history.add_message(c, 'assistant', f'## Part {i}\\n\\n' + 'It works by **reading** the rows, then "
        "`writing` them back. ' * 12 + '\\n\\n- first\\n- second\\n\\n```python\\nprint(' + str(i) + ')\\n```\\n')\n"))


class _LoopbackServer:
    """A loopback HTTP server on a free port that reads each whole request and hands the connection to
    ``_answer``; the two benchmark servers below differ only in what they answer and note."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                self._read_request(conn)
                self._answer(conn)

    def _read_request(self, conn: socket.socket) -> None:
        """Reads the head and a ``Content-Length`` body, so the client never sees its request cut off."""
        data = self._first_read(conn)
        while b"\r\n\r\n" not in data:
            more = conn.recv(65536)
            if not more:
                break
            data += more
        head, _, body = data.partition(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        while len(body) < length:
            more = conn.recv(65536)
            if not more:
                break
            body += more

    def _first_read(self, conn: socket.socket) -> bytes:
        return b""

    def _answer(self, conn: socket.socket) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self.sock.close()


class StreamingServer(_LoopbackServer):
    """A loopback OpenAI-compatible server that answers every chat request with a ``tokens``-token stream."""

    def __init__(self, tokens: int) -> None:
        self.chunks = [_sse_chunk(token) for token in _answer_tokens(tokens)]
        super().__init__()

    def _answer(self, conn: socket.socket) -> None:
        try:
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n")
            for start in range(0, len(self.chunks), 20):  # 20 tokens a write, about 2,000 tokens a second
                conn.sendall(b"".join(self.chunks[start:start + 20]))
                time.sleep(0.01)
            conn.sendall(SSE_END)
        except OSError:
            pass


def fill_history(home: Path, conversations: int) -> None:
    """A history of ``conversations`` conversations (a question and an answer each) under ``home``."""
    _write_history(home, (
        "history.db.execute('PRAGMA synchronous=OFF')\n"
        f"for i in range({conversations}):\n"
        "    c = history.create_conversation(f'Conversation {i} about topic {i % 37}')\n"
        "    history.add_message(c, 'user', f'Question {i}: what about topic {i % 37}?')\n"
        "    history.add_message(c, 'assistant', f'An answer about topic {i % 37}. ' * 20)\n"))


def start_xvfb() -> tuple[subprocess.Popen[bytes], str]:
    read, write = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1920x1080x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    if not number:
        proc.kill()
        raise RuntimeError("Xvfb did not start")
    return proc, f":{number}"


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start_window(command: list[str], env: dict[str, str], trace: Path, *, hold_s: float = 0.0) -> dict[str, float]:
    """One start: seconds from just before the process starts to "painted" and "ready"; with ``hold_s`` the
    window stays up that long after ready and its RSS at IDLE_RSS_AFTER_S after the start is read."""
    from app.session.startup_trace import read_marks

    trace.unlink(missing_ok=True)
    env = {**env, "PARLEY_STARTUP_TRACE": str(trace), "PARLEY_STARTUP_QUIT_AFTER": str(hold_s)}
    start = time.monotonic()
    proc = subprocess.Popen(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    result: dict[str, float] = {}
    if hold_s:
        time.sleep(max(0.0, start + IDLE_RSS_AFTER_S - time.monotonic()))
        if proc.poll() is None:
            result["rss_mb"] = rss_mb(proc.pid)
    try:
        _, err = proc.communicate(timeout=START_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise RuntimeError(f"{command[0]} did not quit within {START_TIMEOUT_S} s") from None
    marks = read_marks(str(trace))
    if "painted" not in marks or "ready" not in marks:
        raise RuntimeError(f"{command} reported no paint/ready (exit {proc.returncode}): {err.decode()[-2000:]}")
    result["painted_s"] = marks["painted"] - start
    result["ready_s"] = marks["ready"] - start
    return result


def window_pairs(home: Path, env: dict[str, str], repeat: int, work: Path) -> dict[str, object]:
    bare_script = work / "bare_window.py"
    bare_script.write_text(BARE_WINDOW)
    parley_env = {**env, "PARLEY_HOME": str(home)}
    parley, bare = [str(PARLEY)], [sys.executable, str(bare_script)]
    trace = work / "trace.txt"
    start_window(parley, parley_env, trace)  # warm-up: the file cache and the database's first open
    start_window(bare, env, trace)
    runs: list[tuple[dict[str, float], dict[str, float]]] = []
    for _ in range(repeat):
        runs.append((start_window(parley, parley_env, trace), start_window(bare, env, trace)))
    median = statistics.median
    return {
        "parley_painted_s": round(median(a["painted_s"] for a, _ in runs), 3),
        "parley_ready_s": round(median(a["ready_s"] for a, _ in runs), 3),
        "bare_painted_s": round(median(b["painted_s"] for _, b in runs), 3),
        "painted_ratio": round(median(a["painted_s"] / b["painted_s"] for a, b in runs), 2),
        "ready_ratio": round(median(a["ready_s"] / b["painted_s"] for a, b in runs), 2),
        "painted_ratio_range": [round(min(a["painted_s"] / b["painted_s"] for a, b in runs), 2),
                                round(max(a["painted_s"] / b["painted_s"] for a, b in runs), 2)],
        "ready_ratio_range": [round(min(a["ready_s"] / b["painted_s"] for a, b in runs), 2),
                              round(max(a["ready_s"] / b["painted_s"] for a, b in runs), 2)],
    }


def idle_memory(home: Path, env: dict[str, str], work: Path) -> dict[str, float]:
    bare_script = work / "bare_window.py"
    bare_script.write_text(BARE_WINDOW)  # also when the window part is skipped
    trace = work / "trace.txt"
    hold = IDLE_RSS_AFTER_S + 1
    parley = start_window([str(PARLEY)], {**env, "PARLEY_HOME": str(home)}, trace, hold_s=hold)
    bare = start_window([sys.executable, str(bare_script)], env, trace, hold_s=hold)
    return {"parley_idle_rss_mb": round(parley.get("rss_mb", float("nan")), 1),
            "bare_idle_rss_mb": round(bare.get("rss_mb", float("nan")), 1)}


def memory_after_answer(env: dict[str, str], work: Path) -> dict[str, float]:
    """VmRSS of the window after it opened a 200-message conversation and a 2,000-token answer streamed in."""
    server = StreamingServer(ANSWER_TOKENS)
    home = work / "home-answer"
    try:
        fill_history(home, 1000)
        fill_long_conversation(home, LONG_CONVERSATION_MESSAGES)
        settings = {"version": 1, "default_provider": "bench", "providers": [
            {"id": "bench", "kind": "openai", "preset": "custom", "base_url": f"http://127.0.0.1:{server.port}/v1",
             "default_model": "m"}]}
        env = {**env, "PARLEY_HOME": str(home)}
        settings_path = Path(subprocess.run(
            [sys.executable, "-c", "from app.paths import resolve_paths; print(resolve_paths().settings)"],
            env=env, cwd=REPO, check=True, capture_output=True, text=True).stdout.strip())
        settings_path.parent.mkdir(parents=True, exist_ok=True)
        settings_path.write_text(json.dumps(settings))
        # As after the user's first run: the note that this provider has no stored key (app/secrets/key_index.py),
        # which that run's keyring lookup recorded, so this run does not open the keyring.
        (settings_path.parent / "stored_keys.json").write_text(
            json.dumps({"version": 1, "entries": {"provider:bench": False}}))
        trace = work / "trace-answer.txt"
        trace.unlink(missing_ok=True)
        env = {**env, "PARLEY_STARTUP_TRACE": str(trace), "PARLEY_STARTUP_QUIT_AFTER": str(SETTLE_AFTER_ANSWER_S + 1),
               "PARLEY_STARTUP_DRIVE": "Tell me more about all of this."}
        from app.session.startup_trace import read_marks

        proc = subprocess.Popen([str(PARLEY)], env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + START_TIMEOUT_S
        rss = float("nan")
        while time.monotonic() < deadline and proc.poll() is None:
            if "answered" in read_marks(str(trace)):
                time.sleep(SETTLE_AFTER_ANSWER_S)
                rss = rss_mb(proc.pid)
                break
            time.sleep(0.05)
        try:
            _, err = proc.communicate(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise RuntimeError("parley did not quit after its answer") from None
        marks = read_marks(str(trace))
        if "answered" not in marks:
            raise RuntimeError(f"parley never answered (marks {sorted(marks)}, exit {proc.returncode}): "
                               f"{err.decode()[-2000:]}")
        return {"parley_after_answer_rss_mb": round(rss, 1),
                "answer_s": round(marks["answered"] - marks["sent"], 2)}
    finally:
        server.close()


def scroll_list(env: dict[str, str], rows: int, home: Path | None = None) -> dict[str, object]:
    """The list's fill and scroll steps with ``rows`` conversations; with ``home`` (a history of as many) also the
    window's list as it reads that history, a page at a time."""
    database = [] if home is None else [subprocess.run(
        [sys.executable, "-c", "from app.paths import resolve_paths; print(resolve_paths().database)"],
        env={**env, "PARLEY_HOME": str(home)}, cwd=REPO, check=True, capture_output=True, text=True).stdout.strip()]
    out = subprocess.run([sys.executable, "-c", SCROLL_LIST, str(rows), *database], env=env, cwd=REPO,
                         capture_output=True, text=True)
    if out.returncode != 0:  # the child's own error, not only its exit status
        raise RuntimeError(f"the list benchmark failed (exit {out.returncode}): {out.stderr[-3000:]}")
    return json.loads(out.stdout)


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.monotonic()
    subprocess.run(command, env=env, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.monotonic() - start


def cli_pairs(env: dict[str, str], repeat: int) -> dict[str, object]:
    baseline = [sys.executable, "-c", "import json"]
    commands = {"version": [str(PARLEY), "--version"], "tools_list": [str(PARLEY), "tools", "list"]}
    for command in (*commands.values(), baseline):
        timed(command, env)  # warm-up
    results: dict[str, object] = {}
    for name, command in commands.items():
        pairs = [(timed(command, env), timed(baseline, env)) for _ in range(repeat)]
        a = statistics.median(p for p, _ in pairs)
        b = statistics.median(q for _, q in pairs)
        results[name] = {"parley_s": round(a, 3), "import_json_s": round(b, 3),
                         "target_s": round(2 * b + 0.1, 3),
                         "ratio_to_target": round(statistics.median(p / (2 * q + 0.1) for p, q in pairs), 2)}
    return results


class FirstByteServer(_LoopbackServer):
    """A loopback HTTP server that notes when the first byte of each request arrives and answers with a short
    OpenAI-style stream, so ``parley chat`` finishes normally."""

    def __init__(self) -> None:
        self.first_bytes: list[float] = []
        super().__init__()

    def _first_read(self, conn: socket.socket) -> bytes:
        data = conn.recv(65536)
        self.first_bytes.append(time.monotonic())
        return data

    def _answer(self, conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n"
                     b"Content-Length: " + str(len(SSE_ANSWER)).encode() + b"\r\n\r\n" + SSE_ANSWER)


def chat_first_byte(env: dict[str, str], repeat: int, work: Path) -> dict[str, float]:
    server = FirstByteServer()
    home = work / "chat-home"
    command = [str(PARLEY), "--data-dir", str(home), "chat", "--base-url", f"http://127.0.0.1:{server.port}/v1",
               "--model", "m", "hello"]
    times = []
    try:
        for i in range(repeat + 1):
            start = time.monotonic()
            proc = subprocess.run(command, env=env, cwd=REPO, capture_output=True, text=True, timeout=60)
            if proc.returncode != 0:
                raise RuntimeError(f"parley chat failed ({proc.returncode}): {proc.stderr[-2000:]}")
            if i:  # the first start creates the data folder and its database
                times.append(server.first_bytes[-1] - start)
    finally:
        server.close()
    return {"chat_first_byte_s": round(statistics.median(times), 3), "target_s": 0.4,
            "ratio_to_target": round(statistics.median(times) / 0.4, 2)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--no-xvfb", action="store_true")
    parser.add_argument("--skip", default="", help="comma-separated parts to skip: window,memory,scroll,cli,chat")
    parser.add_argument("--only-answer", action="store_true", help="measure only the memory after an answer")
    args = parser.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    work = Path(tempfile.mkdtemp(prefix="parley-startup-"))
    env = {key: value for key, value in os.environ.items() if not key.startswith("PARLEY_")}
    env["PYTHONPATH"] = str(REPO)
    # As installed: bytecode is cached (the warm-up start writes it), not compiled from source at every start.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    xvfb = None
    if not args.no_xvfb:
        xvfb, display = start_xvfb()
        env["DISPLAY"] = display
        env.pop("QT_QPA_PLATFORM", None)
        env.pop("WAYLAND_DISPLAY", None)
    result: dict[str, object] = {"benchmark": "startup", "display": "Xvfb" if xvfb else env.get(
        "QT_QPA_PLATFORM", env.get("DISPLAY", "")), "repeat": args.repeat}
    try:
        if args.only_answer:
            result["memory_answer"] = memory_after_answer(env, work)
            print(json.dumps(result))
            return
        for size in (int(s) for s in args.sizes.split(",")):
            home = work / f"home-{size}"
            fill_history(home, size)
            if "window" not in skip:
                result[f"window_{size}"] = window_pairs(home, env, args.repeat, work)
            if "memory" not in skip and size == 1000:
                result["memory_1000"] = {**idle_memory(home, env, work), **memory_after_answer(env, work)}
        if "scroll" not in skip:
            home = work / "home-10000"
            result["list_10000"] = scroll_list(env, 10_000, home if home.exists() else None)
        if "cli" not in skip:
            result["cli"] = cli_pairs(env, args.repeat)
        if "chat" not in skip:
            result["chat"] = chat_first_byte(env, args.repeat, work)
    finally:
        if xvfb is not None:
            xvfb.terminate()
            xvfb.wait()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
