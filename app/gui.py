"""``parley`` with no arguments: the desktop window.

Startup order: Qt application and theme, the asyncio loop on Qt (qasync), settings (a bad file is reported and
defaults are used), the history database (an unusable one is reported and the session runs in memory), the
keyring, then the window. Nothing here blocks on the network: local servers are looked for in the background.
"""

from __future__ import annotations

import asyncio
import logging
import sys

from PySide6.QtWidgets import QApplication

from app.chat_session import ChatSession
from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.settings import load_settings
from app.storage import History, StorageError
from app.tool_setup import tool_registry
from widgets.main_window import MainWindow
from widgets.theme import apply_theme


def build_window(data_dir: str | None = None, secrets: SecretStore | None = None, *,
                 discover: bool = True) -> tuple[MainWindow, ChatSession]:
    """The window and its session, for ``main`` and for tests that drive the real app offscreen."""
    paths = resolve_paths(data_dir)
    loaded = load_settings(paths.settings)
    problems = [loaded.problem] if loaded.problem else []
    history = None
    try:
        history = History.open(paths.database)
    except StorageError as problem:
        problems.append(f"{problem} Conversations in this session will not be saved.")
    window = MainWindow()
    session = ChatSession(window, history, loaded.settings, paths.settings, secrets or SecretStore(),
                          tool_registry, storage_problem=" ".join(problems) or None, discover=discover)
    return window, session


def main(data_dir: str | None = None) -> int:
    import qasync

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Parley")
    app.setOrganizationName("Parley")
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    window, session = build_window(data_dir)
    theme = apply_theme(app, session.settings.ui.theme)
    theme.scheme_applied.connect(window.follow_theme)
    window.follow_theme(theme.scheme or "light")
    window.show()
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    with loop:
        loop.run_until_complete(closed.wait())
    if session.history is not None:
        session.history.close()
    return 0
