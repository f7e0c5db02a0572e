"""The built-in engine as the window sees it: its models in the composer's picker, and its progress and
failures in the status bar, so a model that takes seconds to load never looks like a hung window.

Kept out of app/session/chat_session.py, which only creates one ``EngineLink`` and calls it.
"""

from __future__ import annotations

from app.engine import BUILTIN_PROVIDER, library  # not from .adapter: that loads the provider client
from app.engine.manager import Applied, BuiltinEngine, EngineStatus
from app.settings import Settings
from widgets.main_window import MainWindow


def builtin_choices(settings: Settings) -> list[tuple[str, str]]:
    """(provider, model) pairs for the composer's picker: the engine's models when it can run."""
    if not library.builtin_usable(settings.engine):
        return []
    return [(BUILTIN_PROVIDER, entry.name) for entry in library.models(settings.engine)]


def welcome_note(settings: Settings) -> str:
    """What the welcome says about answering offline ("" when the engine cannot run)."""
    if not builtin_choices(settings):
        return ""
    demo = library.default_model_name(settings.engine) == library.DEMO_MODEL
    model = library.DEMO_LABEL if demo else "your default local model"
    return (f"You can start right away, offline and without a key: the built-in engine runs {model} (the first "
            f"answer waits a few seconds while it loads). {library.BETTER_MODEL_HINT}")


OUTSIDE_CHANGE: dict[Applied, str] = {
    "next_start": "The engine settings were changed in settings.json; the built-in engine starts with them.",
    "at_once": "The engine settings were changed in settings.json and apply now.",
    "restarting": "The engine settings were changed in settings.json: restarting the built-in engine with them…",
    "after_run": "The engine settings were changed in settings.json: the built-in engine restarts with them after "
                 "the current answer.",
}


def outside_change_note(applied: Applied) -> str:
    """The status bar's line when ``parley local set`` (or an edit) changed the engine settings under the window."""
    return OUTSIDE_CHANGE[applied]


class EngineLink:
    def __init__(self, engine: BuiltinEngine, window: MainWindow) -> None:
        self.engine = engine
        self.window = window
        engine.add_listener(self.show)

    def show(self, status: EngineStatus) -> None:
        if status.phase == "starting":
            self.window.set_status(model=f"{BUILTIN_PROVIDER} · {status.detail}…")
        elif status.phase == "ready":
            self.window.set_status(model=f"{BUILTIN_PROVIDER} · {status.model}")
        elif status.phase == "failed":
            self.window.set_status(model=f"{BUILTIN_PROVIDER} · engine failed (see the chat)")
