"""The inline approval panel: full readable arguments, per-call and batch decisions, one signal per batch."""

from __future__ import annotations

import json

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
