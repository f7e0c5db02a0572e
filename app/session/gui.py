"""``parley`` with no arguments: the desktop window.

Startup order: Qt application and theme, the window's first paint on Qt's own event loop, and only then the
asyncio loop on it (qasync, app/session/qt_asyncio.py) and the session: settings (a bad file is reported and defaults
are used), the history database (an unusable one is reported and the session runs in memory), the keyring and
the conversation list. Importing and opening those costs most of a cold start (bench/RESULTS.md), so the window
shows first and fills in a moment later.
Nothing here blocks on the network: local servers are looked for in the background.
"""

from __future__ import annotations

import logging
import sys
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.session import pyside_import, qt_asyncio, startup_trace, window_state
from app.session.gui_thread_gc import GuiThreadCollector
from widgets.main_window import MainWindow
from widgets.theme import apply_theme

FIRST_PAINT_WAIT_MS = 3_000  # the session is opened after the first paint, or after this if none comes

if TYPE_CHECKING:
    import asyncio

    from app.secrets.store import SecretStore
    from app.session.chat_session import ChatSession
    from app.session.quit_signals import BeforeLoop
    from widgets.theme import ThemeController


def attach_session(window: MainWindow, data_dir: str | None = None, secrets: SecretStore | None = None, *,
                   discover: bool = True, theme: ThemeController | None = None) -> ChatSession:
    """Open settings, history and keyring and connect them to ``window``."""
    from app.pydantic_plugins import skip_plugin_discovery

    skip_plugin_discovery()  # before the settings models: no entry-point scan, no importlib.metadata (~1 MB)
    from app.paths import resolve_paths
    from app.runs.tool_setup import tool_registry
    from app.secrets.key_index import KEY_INDEX_NAME, KeyIndex
    from app.secrets.store import SecretStore
    from app.session.chat_session import ChatSession
    from app.settings import load_settings
    from app.storage import History, StorageError

    paths = resolve_paths(data_dir)
    loaded = load_settings(paths.settings)
    problems = [loaded.problem] if loaded.problem else []
    history = None
    try:
        history = History.open(paths.database)
    except StorageError as problem:
        problems.append(f"{problem} Conversations in this session will not be saved.")
    secrets = secrets or SecretStore(index=KeyIndex(paths.config_dir / KEY_INDEX_NAME))  # key_index.py: why
    return ChatSession(window, history, loaded.settings, paths.settings, secrets,
                       tool_registry, storage_problem=" ".join(problems) or None, discover=discover, theme=theme,
                       engine_dir=paths.data_dir)


def build_window(data_dir: str | None = None, secrets: SecretStore | None = None, *,
                 discover: bool = True) -> tuple[MainWindow, ChatSession]:
    """The window and its session at once, for tests and scripts that drive the real app."""
    window = MainWindow()
    return window, attach_session(window, data_dir, secrets, discover=discover)


def main(data_dir: str | None = None) -> int:
    pyside_import.drop_feature_import()  # if the entry point has not (app/session/pyside_import.py)
    app = cast(QApplication, QApplication.instance() or QApplication(sys.argv[:1]))  # instance() is a QApplication
    app.setApplicationName("Parley")
    app.setOrganizationName("Parley")
    collector = GuiThreadCollector(app)  # app/session/gui_thread_gc.py: no Qt object is ever collected off this thread
    window = MainWindow()
    window.composer.setEnabled(False)  # until the session is attached, right after the first paint
    theme = apply_theme(app, "system")
    theme.scheme_applied.connect(window.follow_theme)
    window.follow_theme(theme.scheme or "light")
    sessions: list[ChatSession] = []
    before_loop: list[BeforeLoop] = []  # SIGTERM and Ctrl+C while the session has no asyncio loop yet

    def signals_to_loop(loop: asyncio.AbstractEventLoop) -> None:
        from app.session import quit_signals

        for handler in before_loop:
            handler.close()
        before_loop.clear()
        quit_signals.install(loop, quit_requested)  # SIGTERM and Ctrl+C quit in order from now on

    def attach() -> None:
        if sessions:
            return
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
        from app.session import quit_signals

        # asyncio on Qt's loop starts when first needed (app/session/qt_asyncio.py), or once the user types; until
        # then SIGTERM and Ctrl+C reach quit_requested through Qt, then through the loop (quit_signals.py)
        before_loop.append(quit_signals.BeforeLoop(quit_requested))
        qt_asyncio.start_when_needed(app, on_start=signals_to_loop)
        qt_asyncio.start_on_first(window.composer.input_widget().textChanged)
        session = attach_session(window, data_dir, theme=theme)
        sessions.append(session)
        window.composer.setEnabled(True)
        from app.session import unsent_text

        unsent_text.restore(window, data_dir)  # what was in the composer at the last quit
        window.composer.focus_input()
        startup_trace.mark("ready")
        drive_text = startup_trace.drive_text()  # bench/startup.py: open a conversation and send
        if drive_text is not None:
            from app.session.startup_drive import drive

            drive(window, session, drive_text)
            return
        quit_after = startup_trace.quit_after()
        if quit_after is not None:
            QTimer.singleShot(int(quit_after * 1000), app.quit)

    def painted() -> None:
        startup_trace.mark("painted")
        QTimer.singleShot(0, attach)  # the session opens once the first frame is on screen, never before it

    window_state.restore_window(window, data_dir)  # before show: the first frame is already the saved layout
    window_state.remember_on_close(window, data_dir)
    first_paint = startup_trace.on_first_paint(window, painted)
    window.show()
    QTimer.singleShot(FIRST_PAINT_WAIT_MS, attach)  # a window that is never painted (minimised) still opens

    orderly: list[asyncio.Future[None]] = []  # the quit File > Quit or closing the window began (one at most)
    about_to_quit: list[bool] = []  # Qt's loop is ending: app.quit() from anywhere, or the orderly quit's own

    def quitting() -> None:
        about_to_quit.append(True)  # app.quit() closes the window: that close must not begin another quit
        for session in sessions:
            session.quitting()
        if sessions:  # before the session the composer was off and a kept text not yet put back
            from app.session import unsent_text

            unsent_text.save(window, data_dir)

    async def quit_in_order() -> None:
        """File > Quit or closing the window: cancel the run and background work and close the session while the
        loop still runs, so their tasks finish on it (cancelled after ``aboutToQuit``, an in-flight HTTP probe was
        stepped with no running loop), then quit."""
        import asyncio  # imported with the loop, after the first frame

        from app.session.quit_order import close_session

        try:
            for session in sessions:
                session.quitting()
                await asyncio.gather(*session.background_tasks(), return_exceptions=True)
                await close_session(session)  # MCP servers closed while the loop runs (quit_order.py)
        finally:
            if not about_to_quit:  # else app.quit() was called meanwhile: Qt's loop has returned already
                app.quit()

    async def close_sessions() -> None:
        import asyncio

        from app.session.quit_order import QUIT_CLOSE_WAIT_S, cancel_leftovers, close_session

        for failure in await asyncio.gather(*orderly, return_exceptions=True):  # an orderly quit under way
            if failure is not None:  # a bug: said loudly, and the session is still closed below
                logging.getLogger(__name__).error("quitting in order failed", exc_info=failure)
        for session in sessions:
            await close_session(session)  # again after File > Quit: closing twice is a no-op
        await cancel_leftovers(QUIT_CLOSE_WAIT_S)

    def quit_requested() -> None:
        if orderly or about_to_quit:  # already quitting
            return
        if qt_asyncio.started_loop() is None:  # no loop yet: nothing async ran that needs winding down (the
            app.quit()  # composer's text is kept by quitting(), on aboutToQuit)
            return
        import asyncio

        orderly.append(asyncio.ensure_future(quit_in_order()))

    window.menus.quit_requested.connect(quit_requested)
    app.setQuitOnLastWindowClosed(False)  # closing the window quits in order too, the session closed first
    app.lastWindowClosed.connect(quit_requested)
    app.aboutToQuit.connect(quitting)
    app.exec()
    del first_paint
    loop = qt_asyncio.started_loop()
    if loop is not None:
        qt_asyncio.run_to_end(loop, close_sessions())
    qt_asyncio.forget()
    for handler in before_loop:
        handler.close()
    for session in sessions:
        if session.history is not None:
            session.history.close()
    collector.stop()
    return 0
