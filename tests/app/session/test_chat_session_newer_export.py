"""File > Import of an export made by a newer Parley, in the real window: within format version 2 a newer
version only adds fields (docs/storage.md), so the file imports, the conversation opens with its text and the
status bar names the fields left out; a newer format version is refused with a message that says so."""

from __future__ import annotations

import asyncio
import json

from app.paths import resolve_paths
from app.storage import History
from app.storage.exchange import export_json
from tests.app.session.test_chat_session_files import saved_conversation
from tests.support.session_window import shown_session_window


def export_as_newer(tmp_path, version: int = 2):
    """This version's real export of a saved conversation, with what a newer version might have added."""
    cid = saved_conversation()
    with History.open(resolve_paths().database) as history:
        document = json.loads(export_json(history, cid))
    document["version"] = version
    document["exported_by"] = "Parley 9.0"
    for message in document["messages"]:
        message["citations"] = [{"url": "https://otters.example/"}]
    for run in document["runs"]:
        run["carbon_g"] = 0.4
    path = tmp_path / "newer.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return cid, path


def test_an_export_with_fields_a_newer_version_added_imports_and_names_them(qtbot, qasync_loop, parley_home,
                                                                             tmp_path):
    cid, path = export_as_newer(tmp_path)
    window, session = shown_session_window(qtbot)
    session.choose_import_file = lambda: str(path)
    qasync_loop.run_until_complete(asyncio.wait_for(session.import_file(), 10))

    assert session.conversation_id not in (None, cid) and len(window.conversations.ids_in_order()) == 2
    text = window.chat_view.toPlainText()
    assert "How do otters crack shells?" in text and "With stones." in text and "Not imported" not in text
    assert window.statusBar().currentMessage() == (
        "Imported “Otters: tools/stones?” (2 messages). Left out 3 fields this version of Parley does not know "
        "(the file was made by a newer version): messages[].citations (2×), exported_by, runs[].carbon_g.")
    session.history.close()


def test_an_export_of_a_newer_format_version_is_refused_saying_so(qtbot, qasync_loop, parley_home, tmp_path):
    _cid, path = export_as_newer(tmp_path, version=3)
    window, session = shown_session_window(qtbot)
    session.choose_import_file = lambda: str(path)
    qasync_loop.run_until_complete(asyncio.wait_for(session.import_file(), 10))

    assert f"Not imported: {path} was exported by a newer version of Parley (export format version 3); this " \
           "version imports versions up to 2. Update Parley to import it." in window.chat_view.toPlainText()
    assert len(window.conversations.ids_in_order()) == 1  # only the conversation saved before
    session.history.close()


def test_an_import_with_an_overlong_attachment_name_opens_and_the_status_bar_says_it_was_cut(
        qtbot, qasync_loop, parley_home, tmp_path):
    from app.attachments import attachment_from_bytes
    from app.storage.run_recorder import RunRecorder

    with History.open(resolve_paths().database) as history:
        cid = history.create_conversation("Minutes")
        RunRecorder(history, cid).begin("Summarise", attachments=[attachment_from_bytes("minutes.txt", b"agenda")])
        document = json.loads(export_json(history, cid))
    document["messages"][0]["attachments"][0]["name"] = "n" * 3000 + ".txt"
    path = tmp_path / "long-name.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    window, session = shown_session_window(qtbot)
    session.choose_import_file = lambda: str(path)
    qasync_loop.run_until_complete(asyncio.wait_for(session.import_file(), 10))

    assert session.conversation_id not in (None, cid) and "Summarise" in window.chat_view.toPlainText()
    assert window.statusBar().currentMessage() == (
        "Imported “Minutes” (1 messages). Cut 1 attachment name longer than 255 characters to its start and "
        "extension (the longest had 3,004).")
    session.history.close()
