"""Screenshots of the real window (``make screenshots``): a tool-using answer (heading, list, table, inline and
display math, quote, code block) with reasoning and search results, a regenerated answer with its message
actions and ‹ 2/2 › switcher, the run inspector, a conversation search, the preferences (Local models
included), the composer's chat settings and tool picker, and a question with an attached image and PDF and its
answer, in the light and the dark theme.

Runs the app against a scripted OpenAI-compatible server and a SearXNG-shaped search server, both on loopback,
each theme in its own fresh data folder (under ``$TMPDIR/parley-screenshots``, emptied first) holding a few
earlier conversations, so the pictures do not depend on this machine's history or settings. ``make
screenshots`` runs it under Xvfb (``xvfb-run -a -s "-screen 0 1400x900x24"``, QT_QPA_PLATFORM=xcb) inside
``scripts/with_secret_service.sh``, a private D-Bus session with a fresh gnome-keyring, so the window sees a real
keyring; without one it falls back to an in-memory keyring and says so. It also works offscreen. Before saving
anything it checks the state is what a user would see (every conversation once, no warning, no error in the
chat) and exits 1 naming what is wrong. Saves PNGs to docs/screenshots/, or to the folder given with ``--out``.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
WORK = Path(tempfile.gettempdir()) / "parley-screenshots"
WINDOW_SIZE = (1400, 860)
SERVER_PORT = 18080  # the scripted server's port, shown in Preferences; any free port if it is taken
SEARCH = "tools"
PYTHON = Path(sys.executable).name  # the conversation search shown
GPU_CHECK_S = 30.0  # how long the Local models tab's GPU check (a child process) may take before its picture
MCP_READY_S = 20.0  # how long the MCP "time" server may take to start before the pictures are taken

from tests.support.attachment_files import text_pdf  # noqa: E402
from tests.support.loopback import LoopbackServer, Request, Response  # noqa: E402
from tests.support.openai_wire import stream_response  # noqa: E402

ANSWER = """## Sea otters and tools

Sea otters are one of the few marine mammals known to **use tools**:

- they float on their backs and rest a stone on their chest,
- then crack clams and urchins against it,
- and often keep a favourite stone in a pouch under the forearm.

| prey | tool | how often |
|---|---|---|
| clams | stone anvil | most days |
| urchins | teeth or stone | sometimes |

### How hard they hit

A blow lands with kinetic energy $E = \\tfrac{1}{2} m v^2$, so doubling the speed of the stone
quadruples it:

$$E_{\\text{total}} = \\sum_{i=1}^{n} \\frac{m v_i^2}{2}$$

> An otter may strike a single clam more than 40 times before it opens.

```python
def crack(shell, stone, strikes=40):
    for _ in range(strikes):
        if shell.hit(stone):
            return shell.meat
```

Sources: the Wikipedia article and a 2024 study of otter middens.
"""

# Earlier conversations in the list: (title, question, answer, pinned)
EARLIER = [
    ("Weekend in Lisbon", "Plan two days in Lisbon for someone who likes tiles and trams.",
     "Day one: the **Tile Museum** in the morning, tram 28 through Alfama after lunch.", True),
    ("Why does my pytest fixture run twice?", "My session fixture runs twice with xdist. Why?",
     "Each xdist worker is its own process, so a `session` fixture runs once **per worker**.", False),
    ("Crows and hooks", "Which birds make their own tools?",
     "New Caledonian crows bend twigs into hooks and keep their best **tools** between uses.", False),
    ("Sourdough hydration", "What hydration should a first sourdough loaf use?",
     "Start around **70 %**: wet enough for an open crumb, still easy to shape.", False),
]

# The second answer to one of the earlier conversations, asked for with Regenerate.
BIRDS_AGAIN = ("Besides **New Caledonian crows**, woodpecker finches on the Galápagos use cactus spines to pry "
               "out grubs, and some herons drop bait on the water to lure fish.")

RESULTS = {"query": "sea otters tools", "results": [
    {"url": "https://en.wikipedia.org/wiki/Sea_otter", "title": "Sea otter - Wikipedia",
     "content": "The sea otter is a marine mammal native to the coasts of the northern North Pacific Ocean.",
     "engine": "wikipedia", "score": 4.0, "publishedDate": None},
    {"url": "https://www.example.org/otters/tools", "title": "How otters use stones as tools",
     "content": "Sea otters crack shells with stones they carry under their forearms.",
     "engine": "brave", "score": 1.2, "publishedDate": "2024-06-04T10:00:00"},
    {"url": "https://news.example.com/otter-middens", "title": "Otter middens reveal tool use",
     "content": "Archaeologists find that otters leave distinctive piles of broken shells.",
     "engine": "brave", "score": 0.8, "publishedDate": "2024-04-19T08:00:00"}]}


ATTACHED_QUESTION = "What does the chart show, and does the report agree?"
ATTACHED_ANSWER = """The chart shows **clams** as by far the most common prey (about 60 a day), then urchins
(about 25) and crabs (about 10).

The report agrees: it says *clams make up most of what an otter eats*, and that urchins come second. It adds
what the chart cannot show: otters crack both on a stone held on the chest."""


def chart_png() -> bytes:
    """A small bar chart, drawn here so the picture needs no file from outside."""
    import io

    from PIL import Image, ImageDraw

    image = Image.new("RGB", (480, 300), (250, 250, 247))
    draw = ImageDraw.Draw(image)
    draw.text((20, 14), "Prey per day", fill=(40, 40, 40))
    for index, (label, value, colour) in enumerate([("clams", 60, (52, 120, 200)), ("urchins", 25, (220, 120, 40)),
                                                   ("crabs", 10, (90, 170, 90))]):
        left = 50 + index * 140
        draw.rectangle((left, 260 - value * 3.5, left + 90, 260), fill=colour)
        draw.text((left + 20, 268), label, fill=(40, 40, 40))
    draw.line((40, 260, 460, 260), fill=(60, 60, 60), width=2)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def has_attachments(request: Request) -> bool:
    last = request.json["messages"][-1]
    return last["role"] == "user" and isinstance(last["content"], list)


def model(request: Request) -> Response | None:
    if request.path == "/search":
        return Response.json(RESULTS)
    if request.path != "/v1/chat/completions":
        return None
    if has_attachments(request):
        return stream_response(ATTACHED_ANSWER, reasoning="The image is a bar chart; the PDF is a short report.")
    if request.json["messages"][-1]["content"] == EARLIER[2][1]:
        return stream_response(BIRDS_AGAIN)
    if not any(m["role"] == "tool" for m in request.json["messages"]):
        return stream_response("Let me search for that.",
                               reasoning="The user asks how sea otters use tools. I should search the web first "
                                         "and then summarise what the sources say.",
                               calls=[("call_1", "web_search", {"query": "sea otters tools"})])
    return stream_response(ANSWER, reasoning="The results agree: stones as anvils and hammers, kept in a pouch. "
                                             "I will answer with a short list and cite the sources.")


def seed_history(data_dir: Path) -> None:
    """A few earlier conversations, answered and saved the way a run saves them."""
    from app.paths import resolve_paths
    from app.storage import History
    from app.storage.run_recorder import RunRecorder
    from orchestration.events import ContentDelta, Done, EventFactory, RunStarted

    history = History.open(resolve_paths(data_dir).database)
    for title, question, answer, pinned in EARLIER:
        conversation = history.create_conversation(title, provider="local", model="qwen3-8b")
        recorder = RunRecorder(history, conversation)
        events = EventFactory(recorder.begin(question, provider="local", model="qwen3-8b").run_id)
        recorder(events.make(RunStarted, provider="local", model="qwen3-8b"))
        events.iteration = 1
        recorder(events.make(ContentDelta, content=answer))
        recorder(events.make(Done, finish_reason="stop"))
        if pinned:
            history.set_pinned(conversation, True)
    history.close()


def keyring_store():
    """The real keyring when one works (make screenshots provides a private one), else an in-memory one."""
    from app.secrets.store import SecretStore
    from tests.support.memory_keyring import MemoryKeyring

    store = SecretStore()
    if store.status().usable:
        return store
    print("screenshots: no usable keyring (run under scripts/with_secret_service.sh, as `make screenshots` does); "
          "using an in-memory one", file=sys.stderr)
    return SecretStore(MemoryKeyring())


def unclean(window, session, errors: list[str], finish_reason: str) -> list[str]:
    """What differs from the state the pictures should show."""
    problems = [f"the chat shows an error: {error}" for error in errors]
    if finish_reason != "stop":
        problems.append(f"the run ended with {finish_reason}")
    ids = window.conversations.ids_in_order()
    if len(ids) != len(set(ids)) or len(ids) != len(EARLIER) + 1:
        problems.append(f"the conversation list holds {ids}, expected {len(EARLIER) + 1} different conversations")
    if window.banner.isVisible():
        problems.append(f"a warning is shown: {window.banner.messages()}")
    if not session.secrets.status(probe=False).usable:
        problems.append("the keyring is unusable")
    return problems


def shoot_message_actions(loop, window, session, path: Path) -> bool:
    """Regenerate the answer of the crows conversation, then show the action bar over it: the chat with the
    bar and the ‹ 2/2 › switcher. False (and a message) when the state is not what a user would see."""
    crows = next(c.id for c in session.history.list_conversations() if c.title == EARLIER[2][0])
    session.open_conversation(crows)
    done = loop.create_future()
    session.controller.event_emitted.connect(
        lambda e, d=done: d.set_result(e) if e.type == "done" and not d.done() else None)
    question = window.chat_view.messages()[0].ref
    session.actions.answer_again(question, "", "")
    finished = loop.run_until_complete(asyncio.wait_for(done, 30))
    loop.run_until_complete(asyncio.sleep(0.3))
    answer = window.chat_view.messages()[-1]
    if finished.finish_reason != "stop" or answer.versions != (2, 2) or answer.text != BIRDS_AGAIN:
        print(f"screenshots: not saved: the regenerated answer is {answer}", file=sys.stderr)
        return False
    actions = session.actions.actions
    actions.hovered = len(window.chat_view.messages()) - 1
    actions.set_busy(False)
    loop.run_until_complete(asyncio.sleep(0.2))
    if not actions.bar.isVisible():
        print("screenshots: not saved: the message actions are not shown", file=sys.stderr)
        return False
    window.grab().save(str(path))
    actions.reset()
    return True


def warm_model_info(session) -> None:
    """The local models' GGUF metadata read now, into the cache the Local models tab reads first, so the tab
    shows it at once instead of starting a child process to read it while the pictures are taken."""
    from app.engine import library
    from app.engine.gguf_info import InfoCache

    cache = InfoCache(session.engine.log_path.parent)
    for entry in library.models(session.settings.engine):
        cache.read(entry.path)


def shoot_local_models(preferences, settle, path: Path) -> None:
    """Preferences > Local models, the demo model selected, the dialog as tall as the whole tab needs (its
    Engine settings included) and the GPU note's answer in (the check runs in a child process)."""
    panel = preferences.local_models_panel
    preferences.tabs.setCurrentWidget(panel.tab)
    panel.tab.select(panel.tab.rows[0].name)
    for _ in range(int(GPU_CHECK_S / 0.1)):
        if panel.gpu.answer is not None:
            break
        settle(0.1)
    assert panel.gpu.answer is not None, "the GPU check did not answer"
    size = preferences.size()
    preferences.resize(size.width(), max(size.height(), preferences.sizeHint().height()))
    settle()
    assert all(row.quantization for row in panel.tab.rows), panel.tab.rows
    preferences.grab().save(str(path))
    preferences.resize(size)


def save_with_popup(window, popup, path: Path) -> None:
    """The window with a popup (a separate top-level widget, which ``window.grab()`` leaves out) drawn where it
    shows on screen."""
    from PySide6.QtGui import QPainter

    picture = window.grab()
    painter = QPainter(picture)
    painter.drawPixmap(window.mapFromGlobal(popup.pos()), popup.grab())
    painter.end()
    picture.save(str(path))


def main(argv: list[str]) -> int:
    import argparse

    from PySide6.QtWidgets import QApplication

    from app.paths import resolve_paths
    from app.session.asyncgen_hooks import AsyncGenHooks
    from app.session.gui import attach_session
    from app.session.qasync_loop import QuitSafeEventLoop
    from app.settings import ProviderSettings, Settings, save_settings
    from tools.mcp import McpServerSettings
    from widgets.chat_settings_popover import ChatOptions
    from widgets.main_window import MainWindow
    from widgets.theme import apply_theme

    parser = argparse.ArgumentParser(description="Screenshots of the real window.")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots", help="folder for the PNGs")
    out = parser.parse_args(argv).out
    secrets = keyring_store()
    # the MCP server's command reads "python -m ...", found first on PATH, not this machine's interpreter path
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(WORK, ignore_errors=True)
    notes = WORK / "notes"
    notes.mkdir(parents=True)
    app = QApplication(sys.argv[:1])
    loop = QuitSafeEventLoop(app)  # its tasks keep their loop between pictures (app/session/qasync_loop.py)
    asyncio.set_event_loop(loop)
    generators = AsyncGenHooks(loop)  # qasync sets no asyncgen hooks: as parley does (app/session/qt_asyncio.py)
    generators.install()

    def settle(seconds: float = 0.2) -> None:
        loop.run_until_complete(asyncio.sleep(seconds))

    try:
        server = LoopbackServer(handler=model, port=SERVER_PORT).start()
    except OSError:
        server = LoopbackServer(handler=model).start()
    with server:
        for theme in ("light", "dark"):
            data_dir = WORK / f"home-{theme}"
            os.environ["PARLEY_HOME"] = str(data_dir)  # anything that reads the default paths stays in here too
            settings = Settings(providers=[ProviderSettings(id="local", preset="custom",
                                                            base_url=server.url + "/v1", default_model="qwen3-8b",
                                                            capabilities={"vision": True})],
                                default_provider="local", workspace_folders=[str(notes)])
            settings.search.backend = "searxng"
            settings.search.base_urls = {"searxng": server.url}
            settings.ui.theme = theme
            settings.mcp_servers = [McpServerSettings(name="time", command=PYTHON,
                                                      args=["-m", "mcp_server_time", "--local-timezone", "UTC"])]
            save_settings(settings, resolve_paths(data_dir).settings)
            seed_history(data_dir)
            controller = apply_theme(app, theme)

            errors: list[str] = []

            async def open_window(home: Path = data_dir, seen: list[str] = errors):  # MCP starts on the running loop
                window = MainWindow()
                shown = window.show_error_in_chat
                window.show_error_in_chat = lambda message: (seen.append(message), shown(message))
                return window, attach_session(window, str(home), secrets, discover=False)

            window, session = loop.run_until_complete(open_window())
            window.follow_theme(theme)
            window.resize(*WINDOW_SIZE)
            window.show()
            loop.run_until_complete(session.mcp.wait_ready(MCP_READY_S))
            done = loop.create_future()
            session.controller.event_emitted.connect(
                lambda e, d=done: d.set_result(e) if e.type == "done" and not d.done() else None)
            session.send("How do sea otters use tools?")
            finished = loop.run_until_complete(asyncio.wait_for(done, 30))
            settle(0.3)
            problems = unclean(window, session, errors, finished.finish_reason)
            if problems:
                print(f"screenshots: not saved ({theme}): {'; '.join(problems)}", file=sys.stderr)
                loop.run_until_complete(session.aclose())
                return 1
            window.panes.setCurrentWidget(window.search_pane)
            settle()
            window.grab().save(str(out / f"window-{theme}-search.png"))
            window.panes.setCurrentWidget(window.reasoning_pane)
            if window.reasoning_pane.is_collapsed():
                window.reasoning_pane.toggle_collapsed()
            settle()
            window.grab().save(str(out / f"window-{theme}-reasoning.png"))

            window.conversations.search_box.setText(SEARCH)
            session.search(SEARCH)
            settle()
            window.grab().save(str(out / f"conversation-search-{theme}.png"))
            window.conversations.search_box.clear()
            session.search("")
            settle()

            otters = session.conversation_id
            if not shoot_message_actions(loop, window, session, out / f"message-actions-{theme}.png"):
                loop.run_until_complete(session.aclose())
                return 1
            session.open_conversation(otters)
            settle()

            window.toggle_inspector()
            window.inspector.flush()
            window.inspector.timeline.setCurrentItem(window.inspector.timeline.topLevelItem(0).child(0))
            settle()
            window.grab().save(str(out / f"inspector-{theme}.png"))
            if theme == "light":
                window.inspector.timeline.setCurrentItem(window.inspector.timeline.topLevelItem(0))
                settle()
                window.grab().save(str(out / "inspector-raw-light.png"))
                warm_model_info(session)
                preferences = session.open_preferences()
                preferences.resize(900, 600)
                settle()
                preferences.grab().save(str(out / "preferences-light.png"))
                for tab, name in ((preferences.mcp_servers, "mcp"), (preferences.workspace, "workspace")):
                    preferences.tabs.setCurrentWidget(tab)
                    settle()
                    preferences.grab().save(str(out / f"preferences-{name}-light.png"))
                shoot_local_models(preferences, settle, out / "preferences-local-models-light.png")
                preferences.reject()
                window.toggle_inspector()  # closed again, so the composer's popups are seen against the chat
                composer = window.composer
                composer.set_chat_options(ChatOptions("You are a marine biologist. Answer in short paragraphs and "
                                                      "name your sources.", temperature=0.4,
                                                      max_output_tokens=2048))
                composer.chat_settings_button().show_popover()
                settle()
                save_with_popup(window, composer.chat_settings_button().popover, out / "chat-settings-light.png")
                composer.chat_settings_button().popover.hide()
                composer.set_selected_tools(("calculate", "web_search", "web_fetch", "time__get_current_time"))
                composer.tool_picker().show_popup()
                settle()
                save_with_popup(window, composer.tool_picker().popup, out / "tool-picker-light.png")
                composer.tool_picker().popup.hide()
            if window.inspector.isVisible():
                window.toggle_inspector()
            attachments = WORK / f"attachments-{theme}"
            attachments.mkdir()
            (attachments / "prey-chart.png").write_bytes(chart_png())
            (attachments / "otter-report.pdf").write_bytes(text_pdf(
                "Clams make up most of what an otter eats; urchins come second.",
                "Otters crack both on a stone held on the chest."))
            session.new_chat()
            session.draft.add_paths([str(attachments / "prey-chart.png"), str(attachments / "otter-report.pdf")])
            done = loop.create_future()
            session.controller.event_emitted.connect(
                lambda e, d=done: d.set_result(e) if e.type == "done" and not d.done() else None)
            window.composer.set_reasoning_effort("off")
            session.send(ATTACHED_QUESTION)
            finished = loop.run_until_complete(asyncio.wait_for(done, 30))
            settle(0.3)
            problems = [f"the chat shows an error: {error}" for error in errors]
            if finished.finish_reason != "stop" or problems:
                print(f"screenshots: not saved ({theme}, attachments): {finished.finish_reason} {problems}",
                      file=sys.stderr)
                loop.run_until_complete(session.aclose())
                return 1
            window.grab().save(str(out / f"window-{theme}-attachments.png"))
            loop.run_until_complete(session.aclose())
            session.history.close()
            window.close()
            del controller
    loop.run_until_complete(generators.shutdown())
    generators.uninstall()
    loop.close()  # shuts down the loop's worker threads (the MCP connections used them)
    shutil.rmtree(WORK, ignore_errors=True)
    print(f"saved screenshots to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
