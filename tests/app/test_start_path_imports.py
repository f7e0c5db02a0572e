"""Heavy libraries stay off the start path (issue 17): each start runs in a fresh interpreter and its
``sys.modules`` is inspected, so a module-level import that drags one in fails here, not in a benchmark later.

What each start may not import, and why it is heavy or not needed yet:
- ``parley --version``: nothing beyond the standard library (no pydantic, httpx, Qt, database or keyring).
- the window's first frame: no database (sqlite_utils), keyring, HTTP client (httpx), settings models
  (pydantic), MCP SDK (mcp), page extraction (lxml, readability, markdownify), search backend (ddgs), numpy,
  or syntax lexers (pygments), which are built after the first paint.
- the window once ready with no MCP server configured, and ``parley tools list``: no MCP SDK, page extraction,
  search backend or numpy (those load when a server starts, a page is fetched or a search runs), and not
  httpx's command-line extras (rich; click too where no database is opened), which Parley never uses
  (app/lean_imports.py).
- the window once ready and after whatever it started in the background has finished ("idle"): none of the
  session's features it has not used yet (``NOT_UNTIL_USED``: the run service and chat loop until the first send,
  export and import until the File menu is used, and so on); not the keyring
  (finding its backend loads D-Bus and cryptography; it is looked for when a key is first needed) and not the
  price table (genai-prices with its own HTTP client; it loads when the first priced run is sent), not the file
  tools' regex engine (regex: the tools load when a tool list is built) and not json-repair (loaded the first time
  a model's tool arguments are not JSON). Nor sqlite-utils with click, pluggy and python-dateutil: the history is
  read and written over the sqlite3 module (app/storage/connection.py). Nor httpx: it loads with the first
  provider client, page fetch or search (orchestration/providers/transport.py, tools/web), and local-server
  discovery probes loopback without it. Never llama.cpp (llama_cpp): the built-in engine runs in a child
  process, and so does the check whether it can use a GPU (app/engine/gpu_check.py). Nor the syntax lexers
  (pygments): they are built when the first answer begins (widgets/code_highlighter.warm_up_in_steps), so "idle"
  is read 1.5 s after ready, well after the half-second after the first paint when they used to be warmed.
  Nor the asyncio loop (asyncio, ssl, qasync, concurrent.futures): it starts at its first need
  (app/session/qt_asyncio.py). Nor importlib.metadata (with email): the About box's and the price table's
  versions are read when shown. Nor the built-in engine's child-process module (app.engine.process).
- ``parley tools list`` with settings it can read as plain JSON (none, or a typical file: app/cli/
  listing_settings.py) loads neither pydantic, the settings models nor any tool module (``tools.*``): the tools are
  described from app/runs/tool_catalogue.py. Nor ``dataclasses`` (with ``inspect``, about 10 ms).
- ``parley tools list`` also opens no connection and reads no key, so it loads no HTTP client (httpx), keyring,
  database, event models (orchestration.events, .messages, .engine), regex engine (``regex``, for
  search_files' first search) or asyncio (no MCP server to wait for); reading the settings loads none of the
  tools (tools.files.*) or event models. Nor ``importlib.metadata``: pydantic's plugin loader imports it only to
  scan entry points, and the CLI skips that scan (app/pydantic_plugins.py).
- ``parley chat`` to a provider on loopback: no MCP SDK, extraction, search backend or numpy, neither the MCP
  manager nor the built-in engine's adapter (no MCP server is configured, the provider is not the built-in one),
  and not json_repair (loaded when a model first sends broken tool arguments) or regex.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.loopback import LoopbackServer, Response

REPO = Path(__file__).resolve().parents[2]

EXTRACTION = ("lxml", "readability", "markdownify")
ON_DEMAND = ("mcp", *EXTRACTION, "ddgs", "numpy", "pandas", "rich")
NOT_USED = ("sqlite_utils", "click", "pluggy", "dateutil")
FIRST_USE = (*NOT_USED, "httpx", "httpcore", "anyio", "keyring", "secretstorage", "jeepney", "cryptography",
             "genai_prices", "httpx2", "regex", "json_repair")
NOT_IN_WINDOW = ("llama_cpp",)  # ever: its shared libraries would stay mapped for the whole session
FIRST_FRAME = (*ON_DEMAND, "sqlite_utils", "keyring", "httpx", "pydantic", "pygments")
VERSION = (*FIRST_FRAME, "PySide6", "qasync")

# The app modules the window's start imports before its first frame; the session's (settings, storage, the run
# service) are imported after it.
WINDOW_START_APP = ("app.cli", "app.cli.entry", "app.cli.cli_common", "app.cli.common_options", "app.errors",
                    "app.cli.terminal_text", "app.session", "app.session.gui", "app.session.startup_trace",
                    "app.session.gui_thread_gc", "app.session.qt_asyncio",
                    "app.session.pyside_import",  # PySide6's import layer out
                    "app.session.window_state", "app.paths")  # the saved window layout
# The asyncio loop on Qt's (qasync) starts with the session, after the first frame (app/session/qt_asyncio.py).
EVENT_LOOP = ("asyncio", "qasync")
# Widgets the first frame does not show, built (and imported) when first needed (widgets/main_window.py), and
# what the first answer drawn needs: the markdown parser (pyromark) and the math renderer.
HIDDEN_PANES = ("widgets.approval_panel", "widgets.inspector", "widgets.search_results_pane",
                "widgets.message_actions")  # the per-message actions: with the session (app/session/chat_actions.py)
FIRST_ANSWER = ("widgets.markdown_parser", "widgets.math_render", "pyromark")
# Dialogs and panels "ready" (the list filled, the composer accepting typing) does not show, imported when first
# opened or asked (app/session/dialog_factories.py, app/session/window_usage.py, app/session/window_approver.py),
# and the built-in engine's adapter, which loads the provider client (app/engine/window_link.py needs only its name).
NOT_AT_READY = ("widgets.preferences_dialog", "widgets.preferences_mcp", "widgets.add_provider_dialog",
                "app.engine.local_models_panel", "widgets.usage_dialog", "widgets.usage_chart",
                "widgets.approval_panel", "app.engine.adapter")
# The session's features the idle window has not used yet, loaded on first use (app/session/chat_session.py): the
# run service with the chat loop and a run's controller (the first send or message action), export and import
# (File menu), the add-provider checks and model listing, local-server discovery, the approval bar's wiring, the
# inspector's traces and conversation search.
NOT_UNTIL_USED = ("app.runs.run_service", "orchestration.loop", "app.session.run_controller",
                  "app.runs.conversation_chat", "app.session.conversation_files", "app.storage.exchange",
                  "app.storage.export_fields", "app.runs.provider_check", "orchestration.providers.models",
                  "orchestration.providers.discovery", "app.session.window_approver", "app.storage.search",
                  "app.runs.chat_recording", "app.storage.replay", "app.storage.run_recorder",
                  "app.engine.process")  # the built-in engine's child process: with its first start

REPORT = "import json, sys; print(json.dumps(sorted(m.split('.')[0] for m in sys.modules)))"
REPORT_MODULES = "import json, sys; print(json.dumps(sorted(sys.modules)))"
TOOLS_LIST = (*ON_DEMAND, "click", "httpx", "keyring", "sqlite_utils", "regex", "asyncio")
EVENT_MODELS = ("orchestration.events", "orchestration.messages", "orchestration.engine")
FILE_TOOLS = ("tools.files.read_file", "tools.files.edit_file", "tools.files.search_files", "regex")
CHAT_NOT_NEEDED = ("tools.mcp.manager", "app.engine.adapter", "json_repair", "regex")

WINDOW = r"""
import json, sys, threading
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication([])
from app.session.gui import attach_session
from app.session.startup_trace import on_first_paint
from widgets.main_window import MainWindow
window = MainWindow()
seen = {}
def ready():
    attach_session(window, discover=False)
    seen["ready"] = sorted(sys.modules)
    QTimer.singleShot(1500, idle)  # past any warm-up a timer after the first paint would start
def idle():
    for thread in threading.enumerate():  # what the start left running in the background finishes first
        if thread is not threading.current_thread():
            thread.join(10)
    seen["idle"] = sorted(sys.modules)
    app.quit()
def painted():
    seen["painted"] = sorted(sys.modules)
    QTimer.singleShot(0, ready)
watch = on_first_paint(window, painted)
window.show()
QTimer.singleShot(20_000, app.quit)
app.exec()
print(json.dumps(seen))
"""


# `parley` with no command, through the real entry point (app/cli/entry.py, then app/session/gui.py): what is
# imported when the first frame has been painted, read where the window stamps it (app/session/startup_trace.py),
# and when it is ready.
ENTRY = r"""
import gc, json, linecache, sys
from app.session import startup_trace
seen = {}
automatic = []  # cycle collections started by the interpreter itself once the window's modules load
def collection(phase, info):
    if phase == "start" and gc.isenabled() and "app.session.gui" in sys.modules and "painted" not in seen:
        automatic.append(info["generation"])
gc.callbacks.append(collection)
stamp = startup_trace.mark
def spy(event):
    seen.setdefault(event, sorted(sys.modules))
    seen.setdefault(f"{event}_sources_read", sorted(linecache.cache))  # PySide6's __feature__ scan reads them
    stamp(event)
startup_trace.mark = spy
from app.cli import main
code = main([])
print(json.dumps({"code": code, "automatic_collections": automatic, **seen}))
"""


def _run(code: str, tmp_path: Path, *args: str, env_extra: dict[str, str] | None = None) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO), "PARLEY_HOME": str(tmp_path), "QT_QPA_PLATFORM": "offscreen",
           **(env_extra or {})}
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=90)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


def _cli_modules(tmp_path: Path, *argv: str, report: str = REPORT) -> set[str]:
    code = ("import contextlib, io, sys\nfrom app.cli.entry import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    main(sys.argv[1:])\n" + report)
    return set(json.loads(_run(code, tmp_path, *argv)))


def _loaded(modules: set[str], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(name for name in forbidden if name in modules)


def test_version_imports_nothing_heavy(tmp_path):
    assert _loaded(_cli_modules(tmp_path, "--version"), VERSION) == []


def test_tools_list_without_mcp_servers_loads_no_mcp_sdk_extraction_or_search_backend(tmp_path):
    assert _loaded(_cli_modules(tmp_path, "tools", "list"), (*ON_DEMAND, "click")) == []


def test_tools_list_loads_no_http_client_keyring_database_or_event_models(tmp_path):
    modules = _cli_modules(tmp_path, "tools", "list", report=REPORT_MODULES)
    assert _loaded({m.split(".")[0] for m in modules}, TOOLS_LIST) == []
    assert _loaded(modules, EVENT_MODELS) == []
    assert _loaded(modules, ("importlib.metadata",)) == []  # pydantic's plugin scan (app/pydantic_plugins.py)


# Settings the listing reads as plain JSON (app/cli/listing_settings.py): none, and a typical saved file.
PLAIN_SETTINGS = {"version": 1, "providers": [{"id": "local", "base_url": "http://127.0.0.1:11434/v1"}],
                  "default_provider": "local", "search": {"backend": "brave"}, "ui": {"theme": "dark"},
                  "tools": {"approval": {"web_fetch": "deny"}}}


@pytest.mark.parametrize("settings", [None, PLAIN_SETTINGS], ids=["no settings file", "typical settings"])
def test_tools_list_loads_no_pydantic_settings_models_or_tool_modules(tmp_path, settings):
    if settings is not None:
        (tmp_path / "config").mkdir()
        (tmp_path / "config" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    modules = _cli_modules(tmp_path, "tools", "list", report=REPORT_MODULES)
    assert _loaded({m.split(".")[0] for m in modules}, ("pydantic", "pydantic_core", "tools")) == []
    assert _loaded(modules, ("app.settings", "app.runs.tool_setup", "app.pydantic_plugins")) == []
    assert _loaded(modules, ("dataclasses",)) == []  # it imports inspect: about 10 ms of a 150 ms limit


def test_reading_the_settings_loads_no_tool_or_event_models(tmp_path):
    code = ("from app.paths import resolve_paths\nfrom app.settings import load_settings\n"
            "load_settings(resolve_paths().settings)\n" + REPORT_MODULES)
    modules = set(json.loads(_run(code, tmp_path)))
    assert _loaded(modules, (*EVENT_MODELS, *FILE_TOOLS, "httpx")) == []


def test_chat_to_a_loopback_provider_loads_no_mcp_manager_or_engine_adapter(tmp_path: Path,
                                                                                     loopback: LoopbackServer):
    loopback.add("POST", "/v1/chat/completions", Response.sse(
        [{"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]}], done=True))
    modules = _cli_modules(tmp_path, "chat", "--base-url", loopback.url + "/v1", "--model", "m", "hello",
                           report=REPORT_MODULES)
    assert loopback.count == 1, "the chat never reached the server"
    assert _loaded({m.split(".")[0] for m in modules}, ON_DEMAND) == []
    assert _loaded(modules, CHAT_NOT_NEEDED) == []


@pytest.mark.parametrize("argv", [("history", "list"), ("providers", "list"), ("keys", "--help")])
def test_other_commands_do_not_load_the_mcp_sdk_or_extraction(tmp_path, argv):
    assert _loaded(_cli_modules(tmp_path, *argv), ON_DEMAND) == []


def test_the_first_frame_waits_for_nothing_heavy_and_ready_loads_no_on_demand_library(tmp_path):
    seen = json.loads(_run(WINDOW, tmp_path))
    assert set(seen) == {"painted", "ready", "idle"}, "the window was never painted offscreen"
    assert _loaded(_top_level(seen["painted"]), FIRST_FRAME) == []
    assert _loaded(set(seen["painted"]), (*HIDDEN_PANES, *FIRST_ANSWER)) == []
    assert _loaded(_top_level(seen["ready"]), ON_DEMAND) == []
    assert _loaded(set(seen["ready"]), NOT_AT_READY) == []
    assert _loaded(set(seen["ready"]), ("widgets.inspector", "widgets.search_results_pane", *FIRST_ANSWER,
                                        *NOT_AT_READY)) == []
    assert _loaded(_top_level(seen["idle"]), (*ON_DEMAND, *FIRST_USE, *NOT_IN_WINDOW, "pygments")) == []
    assert _loaded(set(seen["idle"]), NOT_UNTIL_USED) == []
    # the About box's and the price table's versions are read when shown: importlib.metadata is ~3.5 MB idle
    assert _loaded(set(seen["idle"]), ("importlib.metadata", "email")) == []
    # nor the asyncio loop: it starts at the first run, MCP server, import or dialog (app/session/qt_asyncio.py);
    # asyncio imports ssl, and with qasync and concurrent.futures they hold several MB
    assert _loaded(_top_level(seen["idle"]), (*EVENT_LOOP, "ssl", "concurrent")) == []


def test_opening_the_history_loads_no_sqlite_utils_plugins(tmp_path):
    """Looking for sqlite-utils plugins scans every installed package's entry points at each start."""
    code = ("from app.paths import resolve_paths\nfrom app.storage import History\n"
            "history = History.open(resolve_paths().database)\nhistory.list_conversations()\n"
            "from sqlite_utils import plugins\nprint(plugins._plugins_loaded)")
    assert _run(code, tmp_path) == "False"


def _top_level(modules: list[str]) -> set[str]:
    return {name.split(".")[0] for name in modules}


def test_parley_with_no_command_paints_before_it_imports_any_command_or_the_session(tmp_path):
    """The real entry point: a command's module (the history commands import the database and the settings) or
    the version lookup on the way to the window would hold its first frame back."""
    seen = json.loads(_run(ENTRY, tmp_path, env_extra={"PARLEY_STARTUP_QUIT_AFTER": "0"}))
    assert seen["code"] == 0
    assert {"painted", "ready"} <= set(seen), "the window was never painted offscreen"
    painted = seen["painted"]
    assert _loaded(_top_level(painted), (*FIRST_FRAME, *EVENT_LOOP)) == []
    assert _loaded(set(painted), (*HIDDEN_PANES, *FIRST_ANSWER)) == []
    assert sorted(name for name in painted if name.startswith("app.") and name not in WINDOW_START_APP) == []
    assert "importlib.metadata" not in painted
    # the window's imports run without automatic cycle collection (dozens of them, each scanning more, held the
    # first frame back); the GUI-thread collector takes over once the application exists (app/gui_thread_gc.py)
    assert seen["automatic_collections"] == []
    assert _loaded(_top_level(seen["ready"]), ON_DEMAND) == []
    assert _loaded(set(seen["ready"]), NOT_AT_READY) == []


def test_parley_with_no_command_imports_its_modules_without_reading_their_source(tmp_path):
    """PySide6's ``__feature__`` import layer reads the source of every module imported after PySide6 (40 to 60
    ms between the first frame and ready, and the lines kept in memory); the entry point takes it out before the
    window's modules load (app/session/pyside_import.py)."""
    seen = json.loads(_run(ENTRY, tmp_path, env_extra={"PARLEY_STARTUP_QUIT_AFTER": "0"}))
    assert {"painted", "ready"} <= set(seen), "the window was never painted offscreen"
    assert "app.session.chat_session" in seen["ready"]  # the session's modules were imported by then
    ours = tuple(str(REPO / package) + os.sep for package in ("app", "widgets", "orchestration", "tools"))
    for stage in ("painted", "ready"):  # Parley's packages only: a venv may sit inside the checkout (CI's does)
        assert [name for name in seen[f"{stage}_sources_read"] if name.startswith(ours)] == [], stage
