"""The inline approval panel: full readable arguments, per-call and batch decisions, one signal per batch."""

from __future__ import annotations

import json

from tests.support.main_window import exposed_main_window
from widgets.approval_panel import ALLOW, ALWAYS, ARGUMENTS_COLLAPSED_LINES, DENY, ApprovalPanel, PendingCall


def calls() -> list[PendingCall]:
    return [PendingCall("c1", "read_file", {"path": "notes/today.md", "start_line": 3}),
            PendingCall("c2", "list_directory", {"path": "."})]


def test_each_call_shows_its_tool_and_full_arguments(qtbot):
    panel = ApprovalPanel()
    qtbot.addWidget(panel)
    panel.ask(calls())
    assert not panel.isHidden()
    first = panel.cards[0]
    assert json.loads(first.arguments.toPlainText()) == {"path": "notes/today.md", "start_line": 3}
    assert first.arguments.isReadOnly()
    assert "2 tools" in panel.heading.text() and not panel.allow_all.isHidden()


def test_long_arguments_expand_to_their_full_height(qtbot):
    panel = ApprovalPanel()
    qtbot.addWidget(panel)
    long_args = {f"key{i}": "x" * 200 for i in range(ARGUMENTS_COLLAPSED_LINES * 2)}
    panel.ask([PendingCall("c1", "write", long_args)])
    card = panel.cards[0]
    collapsed = card.arguments.height()
    assert not card.expand.isHidden()
    card.expand.click()
    assert card.is_expanded() and card.arguments.height() > collapsed
    assert json.loads(card.arguments.toPlainText()) == long_args  # nothing cut


def test_one_by_one_decisions_emit_once_when_all_are_decided(qtbot):
    panel = ApprovalPanel()
    qtbot.addWidget(panel)
    seen: list[dict] = []
    panel.decided.connect(seen.append)
    panel.ask(calls())
    panel.cards[0].always.click()
    assert seen == []
    panel.cards[1].deny.click()
    assert seen == [{"c1": ALWAYS, "c2": DENY}]
    assert panel.isHidden() and panel.cards == []


def test_allow_all_decides_the_rest_of_the_batch(qtbot):
    panel = ApprovalPanel()
    qtbot.addWidget(panel)
    seen: list[dict] = []
    panel.decided.connect(seen.append)
    panel.ask(calls())
    panel.cards[1].deny.click()
    panel.allow_all.click()
    assert seen == [{"c1": ALLOW, "c2": DENY}]


def test_deny_all(qtbot):
    panel = ApprovalPanel()
    qtbot.addWidget(panel)
    with qtbot.waitSignal(panel.decided) as blocker:
        panel.ask(calls())
        panel.deny_all.click()
    assert blocker.args == [{"c1": DENY, "c2": DENY}]


def test_a_preview_is_shown_instead_of_the_arguments(qtbot):
    panel = ApprovalPanel()
    qtbot.addWidget(panel)
    diff = "Write notes.md: new file (4 B, 1 line) in /w\n--- /dev/null\n+++ b/notes.md\n@@ -0,0 +1 @@\n+<b>hi"
    panel.ask([PendingCall("c1", "write_file", {"path": "notes.md", "content": "<b>hi"}, preview=diff)])
    card = panel.cards[0]
    assert card.arguments.toPlainText() == diff
    assert "wants to make this change" in card.findChild(type(panel.heading)).text()


def test_a_change_to_approve_shows_hidden_characters_instead_of_acting_on_them(qtbot):
    # The user approves what they read: an override must not show "evil" as "live", ESC must not be a blank box
    panel = ApprovalPanel()
    qtbot.addWidget(panel)
    diff = "Write notes/a.md: new file\n+\x1b[31mred\n+pay d\u202eevil\u202c\n"
    panel.ask([PendingCall("w1", "write_file", {"path": "notes/a.md"}, preview=diff),
               PendingCall("r1", "run", {"command": "echo \u2067x\u2069"})])
    write, run = (card.arguments.toPlainText() for card in panel.cards)
    assert "+^[[31mred" in write and "+pay d\\u202eevil\\u202c" in write
    assert "echo \\u2067x\\u2069" in run
    assert not {"\x1b", "\u202e", "\u202c", "\u2067", "\u2069"} & set(write + run)


def _fully_shown(widget) -> bool:
    """Every pixel of the widget is on screen: inside its scroll area's viewport and its window."""
    return widget.isVisible() and widget.visibleRegion().boundingRect() == widget.rect()


def _settled(qtbot, window) -> None:
    """Wait until the window's layout stops moving (a taller box is laid out over a few event-loop turns)."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication, QPushButton

    def geometry() -> list:
        return [(b.mapTo(window, b.rect().topLeft()), b.size()) for b in window.findChildren(QPushButton)]

    last, same = geometry(), 0
    while same < 3:
        QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        qtbot.wait(20)
        now = geometry()
        same, last = (same + 1, last) if now == last else (0, now)


def _long_diff(lines: int = 400) -> str:
    return "Write notes.md: 400 lines\n" + "\n".join(f"+line {i} " + "x" * 40 for i in range(lines))


def test_show_all_on_a_long_preview_keeps_the_decisions_in_view(qtbot):
    window = exposed_main_window(qtbot, 1100, 760)
    window.approval.ask([PendingCall("w1", "write_file", {"path": "notes.md"}, preview=_long_diff())])
    card = window.approval.cards[0]
    card.expand.click()
    _settled(qtbot, window)
    for button in (card.allow, card.always, card.deny, card.expand):
        assert _fully_shown(button), button.text()
    assert card.is_expanded() and card.arguments.height() > 6 * card.arguments.fontMetrics().lineSpacing() * 2
    assert card.arguments.toPlainText() == _long_diff()  # the box scrolls to the rest: nothing cut
    assert card.arguments.verticalScrollBar().maximum() > 0


def test_show_all_in_a_short_window_keeps_the_decisions_in_view(qtbot):
    window = exposed_main_window(qtbot, 1000, 480)
    height = window.height()
    window.approval.ask([PendingCall("a1", "run", {"command": "x " * 5000, **{f"k{i}": i for i in range(300)}})])
    card = window.approval.cards[0]
    _settled(qtbot, window)
    assert all(_fully_shown(b) for b in (card.allow, card.always, card.deny, card.expand))
    card.expand.click()
    _settled(qtbot, window)
    assert all(_fully_shown(b) for b in (card.allow, card.always, card.deny))
    assert window.height() == height  # the panel makes room inside the window, it does not grow it


def test_expanding_a_later_card_of_a_batch_scrolls_its_decisions_into_view(qtbot):
    window = exposed_main_window(qtbot, 1100, 760)
    batch = [PendingCall(f"w{i}", "write_file", {"path": f"n{i}.md"}, preview=_long_diff()) for i in range(3)]
    window.approval.ask(batch)
    last = window.approval.cards[2]
    window.approval.cards_area.ensureWidgetVisible(last.expand)
    last.expand.click()
    _settled(qtbot, window)
    assert all(_fully_shown(b) for b in (last.allow, last.always, last.deny))
