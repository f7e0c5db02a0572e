"""Settings changed in a terminal while the window is open reach the window: the real ``parley local set``
(a subprocess) rewrites settings.json, the window's watcher reads it and applies it as Preferences would (a
running idle engine restarts with the new context, the status bar says so, an open Local models tab shows it
without touching a box the user is editing), and a save by the window right after the command keeps the
command's change instead of writing back its old copy. A stand-in server plays llama.cpp (its command line is
what the child was started with)."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt

from app.engine.settings import EngineSettings, LocalModel
from app.paths import resolve_paths
from app.settings import Settings, save_settings
from tests.app.engine.test_settings_reach_engine import flag, until
from tests.app.session.test_chat_session_preferences import open_window
from tests.support.cli_process import run_parley
from tests.support.memory_keyring import MemoryKeyring
from widgets.preferences_local_models import LocalModelsTab


def settings_with_a_model(model_file: Path) -> Path:
    path = resolve_paths().settings
    save_settings(Settings(engine=EngineSettings(models=[LocalModel(name="tiny", path=str(model_file))],
                                                 default_model="tiny", idle_stop_minutes=0)), path)
    return path


def saved(path: Path) -> dict:
    return json.loads(path.read_text())


def local_set(*args: str) -> None:
    done = run_parley("local", "set", *args)
    assert done.returncode == 0, done.stderr


def test_parley_local_set_restarts_the_windows_engine_now_or_after_the_answer(
        qtbot, qasync_loop, parley_home, model_file: Path, fake_python: str) -> None:
    settings_with_a_model(model_file)
    window, session = open_window(qtbot, MemoryKeyring())
    session.engine.python = fake_python
    try:
        qasync_loop.run_until_complete(session.engine.ensure())
        first = session.engine.pid
        assert flag(first, "--n_ctx") == "4096"

        local_set("context", "2048")  # the real command, in another process
        qasync_loop.run_until_complete(until(lambda: session.engine.pid not in (None, first)
                                             and session.engine.status.phase == "ready", 20.0))
        assert flag(session.engine.pid, "--n_ctx") == "2048"
        assert session.settings.engine.context_size == 2048
        assert "restarting the built-in engine" in window.statusBar().currentMessage()

        session.engine.begin_run()  # an answer is streaming: the change waits for it
        second = session.engine.pid
        local_set("context", "1024")
        qtbot.waitUntil(lambda: "after the current answer" in window.statusBar().currentMessage(), timeout=10_000)
        assert session.engine.pid == second and flag(second, "--n_ctx") == "2048"
        session.engine.end_run()
        qasync_loop.run_until_complete(until(lambda: session.engine.pid not in (None, second)
                                             and session.engine.status.phase == "ready", 20.0))
        assert flag(session.engine.pid, "--n_ctx") == "1024"
    finally:
        qasync_loop.run_until_complete(session.engine.aclose())
        session.history.close()


def test_a_window_save_right_after_the_command_keeps_the_commands_change(qtbot, qasync_loop, parley_home,
                                                                         model_file: Path) -> None:
    path = settings_with_a_model(model_file)
    _window, session = open_window(qtbot, MemoryKeyring())
    local_set("threads", "1")
    session.set_theme("dark")  # before the watcher has read the file: the window's copy still has threads null
    assert saved(path)["engine"]["threads"] == 1 and saved(path)["ui"]["theme"] == "dark"
    assert session.settings.engine.threads == 1 and session.engine.settings.threads == 1  # and applied
    session.history.close()


def test_an_open_local_models_tab_follows_the_file_and_ok_keeps_the_commands_change(
        qtbot, qasync_loop, parley_home, model_file: Path) -> None:
    path = settings_with_a_model(model_file)
    window, session = open_window(qtbot, MemoryKeyring())
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    dialog = session.preferences
    titles = [dialog.tabs.tabText(i) for i in range(dialog.tabs.count())]
    tab = dialog.tabs.widget(titles.index("Local models"))
    assert isinstance(tab, LocalModelsTab)
    box = tab.tuning
    box.idle_stop.setValue(30)  # the user is editing this one

    local_set("context", "2048")
    local_set("idle-stop", "5")
    qtbot.waitUntil(lambda: box.context.value() == 2048 and session.settings.engine.idle_stop_minutes == 5,
                    timeout=10_000)
    assert box.idle_stop.value() == 30  # not overwritten by the file's 5

    dialog.font_size.setValue(15)  # and another tab's change, saved by OK
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert saved(path)["engine"]["context_size"] == 2048 and saved(path)["ui"]["font_size"] == 15
    session.history.close()


def test_an_invalid_file_is_reported_once_and_left_in_place(qtbot, qasync_loop, parley_home,
                                                            model_file: Path) -> None:
    path = settings_with_a_model(model_file)
    _window, session = open_window(qtbot, MemoryKeyring())
    reports: list[str] = []
    session.settings_watch.report = reports.append
    broken = '{"engine": {"context_size": "big"}}'  # a hand edit in progress
    path.write_text(broken)
    qtbot.waitUntil(lambda: len(reports) == 1, timeout=5_000)
    assert f"the settings file {path} is invalid" in reports[0] and "keeps its current settings" in reports[0]
    session.settings_watch.check()  # read again, the same problem: not said twice
    assert len(reports) == 1
    assert path.read_text() == broken  # not moved aside, not rewritten
    assert session.settings.engine.models[0].name == "tiny"

    assert "moves the file aside" in reports[0]

    session.set_theme("dark")  # a change in the window: the broken file is kept aside, the window's written
    [aside] = path.parent.glob("settings.json.bad-*")
    assert aside.read_text() == broken
    assert saved(path)["ui"]["theme"] == "dark" and saved(path)["engine"]["models"][0]["name"] == "tiny"

    local_set("context", "2048")  # and the terminal's next change reaches the window again
    qtbot.waitUntil(lambda: session.settings.engine.context_size == 2048, timeout=5_000)
    assert session.settings.ui.theme == "dark"
    session.history.close()
