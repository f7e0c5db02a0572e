"""The real window over a history whose runs hold a BLOB provider or model: it opens with the status bar's
spend (before, pricing such a run raised a TypeError from the window's first refresh), the usage dialog lists
the damaged names marked beside the intact ones, and the status line counts them with the history's other
damaged values."""

from __future__ import annotations

from app.paths import resolve_paths
from app.storage import History
from tests.app.usage.test_damaged_names import BAD_MODEL, BAD_PROVIDER, COST, damaged_usage_history
from tests.support.session_window import exposed_session_window
from widgets.cost_text import money


def test_damaged_run_names_leave_the_spend_and_the_usage_dialog_working(qtbot, parley_home):
    with History.open(resolve_paths().database) as history:
        damaged_usage_history(history)
    window, session = exposed_session_window(qtbot, 900, 700)
    spend = session.usage.spend_label
    assert money(COST) in spend.text() and "unavailable" not in spend.text(), spend.text()
    assert "runs with no known price are not counted (2 this month)" in spend.toolTip()
    window.menus.usage.trigger()
    dialog = session.usage.dialog
    assert dialog is not None and dialog.isVisible()
    rows = {row[:3] for row in dialog.table_rows()}
    assert rows == {("OpenAI", "gpt-4o", "1"), ("OpenAI", BAD_MODEL, "1"), (BAD_PROVIDER, "gpt-4o", "1")}
    qtbot.waitUntil(lambda: "2 damaged values shown as" in window.statusBar().currentMessage())
    dialog.grab().save(str(parley_home / "usage-damaged-dialog.png"))
    window.grab().save(str(parley_home / "usage-damaged-window.png"))
    dialog.close()
    session.history.close()
    window.close()
