"""Screenshots of usage and cost (``make screenshots`` runs it after scripts/screenshots.py): an answer with its
tokens and cost under it and the spend in the status bar, the run inspector's cost column, and the usage
dialog's 30-day chart and per-provider table, in the light theme (the chart in the dark one too).

Runs the real window against a scripted server on loopback that streams like OpenAI (configured as the OpenAI
preset, so it is priced as OpenAI's gpt-4o by the bundled genai-prices table), in a fresh data folder (under
``$TMPDIR/parley-usage-screenshots``, removed afterwards) seeded with a month of earlier runs at the prices
of their models, an in-memory keyring and a $40 monthly budget. Saves PNGs to docs/screenshots/, or to
``--out``. Exits 1 naming the problem when the window does not show a footer or a cost.
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import sys
import tempfile
from datetime import date, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
WORK = Path(tempfile.gettempdir()) / "parley-usage-screenshots"
WINDOW_SIZE = (1400, 860)
BUDGET_USD = 40.0

from tests.support.loopback import LoopbackServer, Request, Response  # noqa: E402
from tests.support.openai_wire import stream_response  # noqa: E402

ANSWER = """Here is what last month cost, by model:

| model | runs | cost |
|---|---|---|
| claude-sonnet-4-5 | 41 | $11.20 |
| gpt-4o | 63 | $7.85 |
| gemini-2.5-flash | 88 | $1.12 |

Most of the spend is long Claude conversations; moving drafts to **gemini-2.5-flash** would cut it by about
two thirds."""

# (preset title as runs store it, model, input tokens, output tokens, cached) for the seeded month
EARLIER = [("OpenAI", "gpt-4o", 9_000, 900, 2_000), ("Anthropic", "claude-sonnet-4-5", 14_000, 1_400, 6_000),
           ("Google Gemini", "gemini-2.5-flash", 12_000, 2_000, 0),
           ("Ollama (OpenAI-compatible /v1)", "llama3.1", 6_000, 800, 0)]


def model(request: Request) -> Response | None:
    if request.path != "/v1/chat/completions":
        return None
    if not any(m["role"] == "tool" for m in request.json["messages"]):
        return stream_response("Let me add that up.", calls=[("call_1", "calculate", {"expression": "11.2+7.85+1.12"})],
                               usage=(1_850, 96))
    return stream_response(ANSWER, usage=(2_460, 180))


def seed_history(database: Path) -> None:
    """A month of runs, priced the way a run is priced (app/usage/prices.py)."""
    from app.storage import History
    from app.usage.prices import pricers_from_settings
    from app.usage.report import start_of_day
    from orchestration.engine import TokenUsage

    pricers = pricers_from_settings([], {})
    rng = random.Random(7)
    today = date.today()
    with History.open(database) as history:
        conversation = history.create_conversation("Earlier work")
        for back in range(29, -1, -1):
            day = today - timedelta(days=back)
            for n in range(rng.randint(0 if day.weekday() >= 5 else 2, 5 if day.weekday() >= 5 else 9)):
                provider, name, inp, out, cached = rng.choice(EARLIER)
                scale = rng.uniform(0.4, 2.5)
                usage = TokenUsage(input_tokens=int(inp * scale), output_tokens=int(out * scale),
                                   cached_tokens=int(cached * scale))
                cost = pricers(provider)(name, usage)
                started = start_of_day(day) + (9 + n) * 3_600_000
                history.db.execute(
                    "INSERT INTO runs (id, conversation_id, provider, model, status, finish_reason, started_at, "
                    "ended_at, iterations, input_tokens, output_tokens, reasoning_tokens, cached_tokens, cost_usd, "
                    "priced_at) VALUES (?, ?, ?, ?, 'complete', 'stop', ?, ?, 1, ?, ?, 0, ?, ?, ?)",
                    [f"seed-{back}-{n}", conversation, provider, name, started, started + 4000, usage.input_tokens,
                     usage.output_tokens, usage.cached_tokens, cost, started])


def main(argv: list[str]) -> int:
    import argparse

    from PySide6.QtWidgets import QApplication

    from app.paths import resolve_paths
    from app.secrets import provider_entry
    from app.secrets.store import SecretStore
    from app.session.asyncgen_hooks import AsyncGenHooks
    from app.session.gui import attach_session
    from app.session.qasync_loop import QuitSafeEventLoop
    from app.settings import ProviderSettings, Settings, save_settings
    from tests.support.memory_keyring import MemoryKeyring
    from widgets.inspector import COST_COLUMN
    from widgets.main_window import MainWindow
    from widgets.theme import apply_theme

    parser = argparse.ArgumentParser(description="Screenshots of usage and cost.")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots", help="folder for the PNGs")
    out = parser.parse_args(argv).out
    out.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(WORK, ignore_errors=True)
    app = QApplication(sys.argv[:1])
    loop = QuitSafeEventLoop(app)  # its tasks keep their loop between pictures (app/session/qasync_loop.py)
    asyncio.set_event_loop(loop)
    generators = AsyncGenHooks(loop)  # qasync sets no asyncgen hooks: as parley does (app/session/qt_asyncio.py)
    generators.install()

    def settle(seconds: float = 0.2) -> None:
        loop.run_until_complete(asyncio.sleep(seconds))

    with LoopbackServer(handler=model) as server:
        for theme in ("light", "dark"):
            home = WORK / f"home-{theme}"
            os.environ["PARLEY_HOME"] = str(home)
            paths = resolve_paths(home)
            settings = Settings(providers=[ProviderSettings(id="openai", preset="openai",
                                                            base_url=server.url + "/v1", default_model="gpt-4o")],
                                default_provider="openai")
            settings.ui.theme = theme
            settings.usage.monthly_budget_usd = BUDGET_USD
            save_settings(settings, paths.settings)
            seed_history(paths.database)
            secrets = SecretStore(MemoryKeyring())
            secrets.store(provider_entry("openai"), "sk-screenshot-not-a-key")
            controller = apply_theme(app, theme)

            async def open_window(data: Path = home, store: SecretStore = secrets):
                window = MainWindow()
                return window, attach_session(window, str(data), store, discover=False)

            window, session = loop.run_until_complete(open_window())
            window.follow_theme(theme)
            window.resize(*WINDOW_SIZE)
            window.show()
            if theme == "light":
                done = loop.create_future()
                session.controller.event_emitted.connect(
                    lambda e, d=done: d.set_result(e) if e.type == "done" and not d.done() else None)
                session.send("What did my models cost last month?")
                loop.run_until_complete(asyncio.wait_for(done, 30))
                settle(0.3)
                window.chat_view.flush()
                text = window.chat_view.toPlainText()
                if " out · $" not in text or "Chat $" not in session.usage.spend_label.text():
                    print("usage screenshots: no answer footer or chat spend shown", file=sys.stderr)
                    return 1
                window.grab().save(str(out / "usage-answer-cost-light.png"))
                window.toggle_inspector()
                window.inspector.flush()
                window.inspector.timeline.setCurrentItem(window.inspector.timeline.topLevelItem(1))
                settle()
                if not window.inspector.timeline.topLevelItem(0).text(COST_COLUMN).startswith("$"):
                    print("usage screenshots: the inspector shows no cost", file=sys.stderr)
                    return 1
                window.grab().save(str(out / "usage-inspector-cost-light.png"))
                window.toggle_inspector()
            dialog = session.usage.open_dialog()
            dialog.resize(900, 680)
            settle()
            dialog.grab().save(str(out / f"usage-chart-{theme}.png"))
            dialog.close()
            loop.run_until_complete(session.aclose())
            session.history.close()
            window.close()
            del controller
    loop.run_until_complete(generators.shutdown())
    generators.uninstall()
    loop.close()
    shutil.rmtree(WORK, ignore_errors=True)
    print(f"saved usage screenshots to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
