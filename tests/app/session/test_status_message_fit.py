"""The real window at 1000 px with a long status message beside the permanent labels (model, tokens, MCP,
keyring, spend): the message is not clipped mid-word at the labels; the part drawn keeps its end, marks what is
left out with "…", and the whole text is reachable (tooltip, "Recent Messages…")."""

from __future__ import annotations

from PySide6.QtWidgets import QPlainTextEdit

from app.paths import resolve_paths
from app.storage import History
from tests.app.storage.test_blob_values import blob_history
from tests.support.session_window import exposed_session_window


def test_long_damaged_note_is_readable_at_1000_px(qtbot, parley_home):
    with History.open(resolve_paths().database) as history:
        blob_history(history)
    window, session = exposed_session_window(qtbot, 1000, 700)
    bar = window.statusBar()
    qtbot.waitUntil(lambda: "damaged value shown as" in bar.currentMessage())
    window.model_label.setText("OpenRouter · anthropic/claude-sonnet-4.5")  # a usual model label's length
    window.mcp_label.setText("MCP: 2 servers, 14 tools")
    qtbot.wait(50)
    full = bar.currentMessage()
    assert bar.toolTip() == full  # the whole text is reachable by hovering
    metrics = bar.fontMetrics()
    room = bar.message_rect()
    first_label = min(w.x() for w in (window.model_label, window.usage_label, window.mcp_label,
                                       window.keyring_label) if w.isVisible())
    assert room.right() < first_label
    assert metrics.horizontalAdvance(full) > room.width(), "the note must be longer than the room for this test"
    shown = bar.shown_text()
    assert metrics.horizontalAdvance(shown) <= room.width()
    start, _, end = shown.partition("…")
    assert end and full.startswith(start) and full.endswith(end), shown  # elided in the middle, the end kept
    assert full.rstrip().endswith("intact.") and shown.endswith("intact."), (full, shown)
    assert [record.text for record in bar.history()][-1] == full
    dialog = bar.show_history()
    qtbot.addWidget(dialog)
    assert full in dialog.findChild(QPlainTextEdit).toPlainText()
    window.grab().save(str(parley_home.parent / "status-1000.png"))
    session.history.close()
    window.close()


def test_import_note_at_the_default_width_keeps_its_end(qtbot, qasync_loop, parley_home, tmp_path):
    """File > Import of an export with an overlong attachment name, in the window at its default size (1280 px)."""
    import asyncio
    import json

    from app.attachments import attachment_from_bytes
    from app.storage.exchange import export_json
    from app.storage.run_recorder import RunRecorder
    from tests.support.session_window import shown_session_window

    with History.open(resolve_paths().database) as history:
        cid = history.create_conversation("Minutes of the quarterly planning meeting, with the budget appendix")
        RunRecorder(history, cid).begin("Summarise", attachments=[attachment_from_bytes("minutes.txt", b"agenda")])
        document = json.loads(export_json(history, cid))
    document["messages"][0]["attachments"][0]["name"] = "n" * 3000 + ".txt"
    path = tmp_path / "long-name.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    window, session = shown_session_window(qtbot)
    qtbot.waitExposed(window)
    assert window.width() == 1280
    window.model_label.setText("OpenRouter · anthropic/claude-sonnet-4.5")
    session.choose_import_file = lambda: str(path)
    qasync_loop.run_until_complete(asyncio.wait_for(session.import_file(), 10))
    bar = window.statusBar()
    full = bar.currentMessage()
    assert full.startswith("Imported “Minutes") and full.endswith("(the longest had 3,004).")
    assert bar.toolTip() == full
    qtbot.wait(50)
    shown = bar.shown_text()
    assert bar.fontMetrics().horizontalAdvance(shown) <= bar.message_rect().width() < bar.fontMetrics(
        ).horizontalAdvance(full)
    start, _, end = shown.partition("…")
    assert full.startswith(start) and full.endswith(end) and end.endswith("3,004)."), shown
    assert bar.history()[-1].text == full
    window.grab().save(str(tmp_path / "status-1280.png"))
    session.history.close()
