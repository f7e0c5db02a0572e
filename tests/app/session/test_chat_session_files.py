"""File and View menus from the real window: export the open conversation as Markdown and JSON to real files,
import the JSON back as a new conversation, refuse a bad file without a traceback, and save a theme choice."""

from __future__ import annotations

import asyncio
import json

from app.paths import resolve_paths
from app.settings import load_settings
from app.storage import History
from app.storage.run_recorder import RunRecorder
from orchestration.events import ContentDelta, Done, EventFactory, RunStarted
from tests.support.session_window import shown_session_window


def saved_conversation() -> int:
    history = History.open(resolve_paths().database)
    cid = history.create_conversation("Otters: tools/stones?")
    recorder = RunRecorder(history, cid)
    ids = recorder.begin("How do otters crack shells?")
    events = EventFactory(ids.run_id)
    recorder(events.make(RunStarted, provider="local", model="m"))
    events.iteration = 1
    recorder(events.make(ContentDelta, content="With **stones**."))
    recorder(events.make(Done, finish_reason="stop"))
    history.close()
    return cid


def test_export_both_formats_and_import_back(qtbot, qasync_loop, parley_home, tmp_path):
    cid = saved_conversation()
    window, session = shown_session_window(qtbot)
    assert not window.menus.export_markdown.isEnabled()
    session.open_conversation(cid)
    assert window.menus.export_markdown.isEnabled()
    asked: list[tuple[str, str]] = []

    def choose(suggested, fmt):
        asked.append((suggested.name, fmt))
        return str(tmp_path / f"out.{'md' if fmt == 'markdown' else 'json'}")

    session.choose_conversation_file = choose
    window.menus.export_markdown.trigger()
    window.menus.export_json.trigger()
    assert asked == [("Otters tools stones.md", "markdown"), ("Otters tools stones.json", "json")]
    markdown = (tmp_path / "out.md").read_text(encoding="utf-8")
    assert "How do otters crack shells?" in markdown and "With **stones**." in markdown
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["format"] == "parley.conversation"

    session.choose_import_file = lambda: str(tmp_path / "out.json")
    window.menus.import_conversation.trigger()
    qasync_loop.run_until_complete(asyncio.wait_for(session._import_task, 10))
    ids = window.conversations.ids_in_order()
    assert len(ids) == 2 and session.conversation_id not in (None, cid) and session.conversation_id in ids
    assert "With stones." in window.chat_view.toPlainText()
    session.history.close()


def test_a_bad_import_file_is_refused_with_its_problem(qtbot, qasync_loop, parley_home, tmp_path):
    window, session = shown_session_window(qtbot)
    bad = tmp_path / "notes.json"
    bad.write_text('{"format": "something else"}', encoding="utf-8")
    session.choose_import_file = lambda: str(bad)
    task = session.import_file()
    qasync_loop.run_until_complete(asyncio.wait_for(task, 10))
    assert "Not imported" in window.chat_view.toPlainText() and "not a Parley conversation export" in \
        window.chat_view.toPlainText()
    assert window.conversations.ids_in_order() == []
    session.history.close()


def test_a_failed_export_write_is_reported(qtbot, qasync_loop, parley_home, tmp_path):
    cid = saved_conversation()
    window, session = shown_session_window(qtbot)
    session.open_conversation(cid)
    session.choose_conversation_file = lambda suggested, fmt: str(tmp_path / "missing-folder" / "out.md")
    window.menus.export_markdown.trigger()
    assert "could not be exported" in window.chat_view.toPlainText()
    session.history.close()


def test_view_theme_is_saved(qtbot, qasync_loop, parley_home):
    window, session = shown_session_window(qtbot)
    window.menus.theme_actions["dark"].trigger()
    assert load_settings(resolve_paths().settings).settings.ui.theme == "dark"
    assert window.menus.theme_actions["dark"].isChecked()
    session.history.close()
