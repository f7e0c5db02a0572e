"""The window and the CLI see the same branches: versions made in the window (pytest-qt, real SQLite file) show
in `parley history show` run as a real process, versions made with `parley chat --regenerate` and
`parley history switch` show in the window's ‹ › switcher, and an answer stopped in the window is continued by
`parley chat --continue` into the same answer."""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.paths import resolve_paths
from app.storage import History
from tests.support.cli_process import run_parley
from tests.support.window_actions import (
    CTRL_SHIFT,
    close_window,
    model_fixture,  # noqa: F401 (the model fixture)
    open_window,
    settle,
    stopped_answer,
    tree,
)


def history_show(conversation: int) -> str:
    shown = run_parley("history", "show", str(conversation))
    assert shown.returncode == 0, shown.stderr
    return shown.stdout


def test_versions_made_in_the_window_show_in_the_cli(qtbot, qasync_loop, model):
    window, session = open_window(qtbot, qasync_loop)
    try:
        model.answers += ["Olive", "Oscar"]
        session.send("Name an otter")
        settle(qasync_loop, session)
        qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_R, CTRL_SHIFT)
        settle(qasync_loop, session)
        conversation = session.conversation_id
        shown = history_show(conversation)
        assert "assistant (2 of 2 versions): Oscar" in shown

        actions = session.actions.actions
        actions.trigger("edit", 0)
        actions.editor.editor.setPlainText("Name a sea otter")
        model.answers.append("Sally")
        qtbot.mouseClick(actions.editor.ok_button, Qt.MouseButton.LeftButton)
        settle(qasync_loop, session)
        shown = history_show(conversation)
        assert "user (2 of 2 versions): Name a sea otter" in shown and "assistant: Sally" in shown

        window.activateWindow()  # the editor has closed (offscreen, no window manager gives the focus back)
        qtbot.waitUntil(window.isActiveWindow, timeout=3000)
        qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
        qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)
        qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
        shown = history_show(conversation)
        assert "user (1 of 2 versions): Name an otter" in shown and "assistant (2 of 2 versions): Oscar" in shown
    finally:
        close_window(qasync_loop, session)


def test_versions_made_with_the_cli_show_in_the_window(qtbot, qasync_loop, model):
    model.answers += ["Olive", "Oscar"]
    assert run_parley("chat", "Name an otter").returncode == 0
    again = run_parley("chat", "--conversation", "1", "--regenerate")
    assert again.returncode == 0, again.stderr

    window, session = open_window(qtbot, qasync_loop)
    try:
        session.open_conversation(1)
        assert [(m.role, m.text, m.versions) for m in window.chat_view.messages()] == [
            ("user", "Name an otter", None), ("assistant", "Oscar", (2, 2))]
        assert "Assistant   ‹ 2/2 ›" in window.chat_view.toPlainText().replace("\u00a0", " ")

        with History.open(resolve_paths().database) as history:
            answers = [m.id for m in history.all_messages(1) if m.role == "assistant"]
        switched = run_parley("history", "switch", "1", str(answers[0]))
        assert switched.returncode == 0, switched.stderr
        session.open_conversation(1)
        assert window.chat_view.messages()[-1].text == "Olive"
        assert window.chat_view.messages()[-1].versions == (1, 2)
        assert tree(1)[-1] == ("assistant", "Olive")
    finally:
        close_window(qasync_loop, session)


def test_an_answer_stopped_in_the_window_is_continued_by_the_cli(qtbot, qasync_loop, model):
    window, session = open_window(qtbot, qasync_loop)
    try:
        stopped_answer(qtbot, qasync_loop, window, session, model, "Tell me about otter fur",
                       "Otters have the densest fur")
        conversation = session.conversation_id
        assert "continue" in session.actions.actions.available(1)

        model.answers.append(" of any animal.")
        went_on = run_parley("chat", "--conversation", str(conversation), "--continue")
        assert went_on.returncode == 0, went_on.stderr
        assert went_on.stdout == " of any animal.\n"
        session.open_conversation(conversation)
        (_question, answer) = window.chat_view.messages()
        assert answer.text == "Otters have the densest fur of any animal." and answer.status == "complete"
        assert "continue" not in session.actions.actions.available(1)
    finally:
        close_window(qasync_loop, session)
