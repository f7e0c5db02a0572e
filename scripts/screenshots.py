"""Screenshots of the real window (``make screenshots``): a tool-using answer with reasoning and search results.

Runs the app against a scripted OpenAI-compatible server and a SearXNG-shaped search server, both on loopback,
with a throw-away PARLEY_HOME, then saves PNGs to docs/screenshots/. Meant to run under Xvfb
(``xvfb-run -a -s "-screen 0 1400x900x24"`` with QT_QPA_PLATFORM=xcb); it also works offscreen.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ["PARLEY_HOME"] = tempfile.mkdtemp(prefix="parley-shots-")

from tests.support.loopback import LoopbackServer, Request, Response  # noqa: E402
from tests.support.openai_wire import stream_response  # noqa: E402

ANSWER = """## Sea otters and tools

Sea otters are one of the few marine mammals known to **use tools**:

- they float on their backs and rest a stone on their chest,
- then crack clams and urchins against it,
- and often keep a favourite stone in a pouch under the forearm.

```python
def crack(shell, stone):
    return shell.open_with(stone)
```

Sources: the Wikipedia article and a 2024 study of otter middens.
"""

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


def model(request: Request) -> Response | None:
    if request.path == "/search":
        return Response.json(RESULTS)
    if request.path != "/v1/chat/completions":
        return None
    if not any(m["role"] == "tool" for m in request.json["messages"]):
        return stream_response("Let me search for that.",
                               reasoning="The user asks how sea otters use tools. I should search the web first "
                                         "and then summarise what the sources say.",
                               calls=[("call_1", "web_search", {"query": "sea otters tools"})])
    return stream_response(ANSWER, reasoning="The results agree: stones as anvils and hammers, kept in a pouch. "
                                             "I will answer with a short list and cite the sources.")


def main() -> int:
    import qasync
    from PySide6.QtWidgets import QApplication

    from app.gui import build_window
    from app.paths import resolve_paths
    from app.settings import ProviderSettings, Settings, save_settings
    from tools.mcp import McpServerSettings
    from widgets.theme import apply_theme

    out = REPO / "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication(sys.argv[:1])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with LoopbackServer(handler=model) as server:
        settings = Settings(providers=[ProviderSettings(id="local", preset="custom", base_url=server.url + "/v1",
                                                        default_model="qwen3-8b")], default_provider="local")
        settings.search.backend = "searxng"
        settings.search.base_urls = {"searxng": server.url}
        settings.mcp_servers = [McpServerSettings(name="time", command=sys.executable,
                                                  args=["-m", "mcp_server_time", "--local-timezone", "UTC"])]
        save_settings(settings, resolve_paths().settings)
        for theme in ("light", "dark"):
            controller = apply_theme(app, theme)
            async def open_window():  # MCP servers start on the running loop, as in the app
                return build_window(discover=False)

            window, session = loop.run_until_complete(open_window())
            window.follow_theme(theme)
            window.resize(1400, 860)
            window.show()
            done = loop.create_future()
            session.controller.event_emitted.connect(
                lambda e, d=done: d.set_result(e) if e.type == "done" and not d.done() else None)
            window.composer.set_reasoning_effort("medium")
            session.send("How do sea otters use tools?")
            loop.run_until_complete(asyncio.wait_for(done, 30))
            loop.run_until_complete(asyncio.sleep(0.3))
            window.panes.setCurrentWidget(window.search_pane)
            loop.run_until_complete(asyncio.sleep(0.2))
            window.grab().save(str(out / f"window-{theme}-search.png"))
            window.panes.setCurrentWidget(window.reasoning_pane)
            if window.reasoning_pane.is_collapsed():
                window.reasoning_pane.toggle_collapsed()
            loop.run_until_complete(asyncio.sleep(0.2))
            window.grab().save(str(out / f"window-{theme}-reasoning.png"))
            window.toggle_inspector()
            window.inspector.flush()
            window.inspector.timeline.setCurrentItem(window.inspector.timeline.topLevelItem(0).child(0))
            loop.run_until_complete(asyncio.sleep(0.2))
            window.grab().save(str(out / f"inspector-{theme}.png"))
            if theme == "light":
                window.inspector.timeline.setCurrentItem(window.inspector.timeline.topLevelItem(0))
                loop.run_until_complete(asyncio.sleep(0.2))
                window.grab().save(str(out / "inspector-raw-light.png"))
            if theme == "light":
                preferences = session.open_preferences()
                preferences.resize(900, 600)
                loop.run_until_complete(asyncio.sleep(0.2))
                preferences.grab().save(str(out / "preferences-light.png"))
                preferences.tabs.setCurrentWidget(preferences.mcp_servers)
                loop.run_until_complete(asyncio.sleep(0.2))
                preferences.grab().save(str(out / "preferences-mcp-light.png"))
                preferences.reject()
            loop.run_until_complete(session.mcp.aclose())
            session.history.close()
            window.close()
            del controller
    loop.close()  # shuts down the loop's worker threads (the MCP connections used them)
    print(f"saved screenshots to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
