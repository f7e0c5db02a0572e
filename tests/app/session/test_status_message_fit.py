"""The real window at 1000 px with a long status message beside the permanent labels (model, tokens, MCP,
keyring, spend): the message is not clipped mid-word at the labels; the part drawn keeps its end, marks what is
left out with "…", and the whole text is reachable (tooltip, "Recent Messages…")."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QPlainTextEdit

from app.paths import resolve_paths
from app.secrets.store import SecretStore
from app.session.gui import build_window
from app.storage import History
from app.storage.damaged_values import forget
from tests.app.storage.test_blob_values import blob_history
from tests.support.memory_keyring import MemoryKeyring


@pytest.fixture(autouse=True)
def _fresh_count():
    forget()
    yield
    forget()


def test_long_damaged_note_is_readable_at_1000_px(qtbot, parley_home):
    with History.open(resolve_paths().database) as history:
        blob_history(history)
    window, session = build_window(secrets=SecretStore(MemoryKeyring()), discover=False)
    qtbot.addWidget(window)
    window.resize(1000, 700)
    window.show()
    qtbot.waitExposed(window)
    bar = window.statusBar()
    qtbot.waitUntil(lambda: "damaged value shown as" in bar.currentMessage())
    window.model_label.setText("OpenRouter · anthropic/claude-sonnet-4.5")  # a usual model label's length
    window.mcp_label.setText("MCP: 2 servers, 14 tools")
    qtbot.wait(50)
    full = bar.currentMessage()
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
    assert bar.toolTip() == full
    assert [record.text for record in bar.history()][-1] == full
    dialog = bar.show_history()
    qtbot.addWidget(dialog)
    assert full in dialog.findChild(QPlainTextEdit).toPlainText()
    window.grab().save(str(parley_home.parent / "status-1000.png"))
    session.history.close()
    window.close()
