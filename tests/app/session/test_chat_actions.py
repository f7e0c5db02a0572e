"""Every message action in the real window (pytest-qt, qasync) against a model on loopback, over a real SQLite
file: regenerate (and with another model), retry after an error, edit a question, edit an answer, continue
after Stop, switch versions and delete a pair; the resulting tree is checked in the database."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu, QMessageBox

from app.runs.chat_recording import CONTINUE_PROMPT
from tests.support.window_actions import (
    CTRL_SHIFT,
    Model,
    app_fixture,  # noqa: F401 (the app fixture)
    model_fixture,  # noqa: F401 (the model fixture)
    settle,
    stopped_answer,
    streamed,
)
from tests.support.window_actions import tree as stored_tree


def tree(session) -> list[tuple[str, str]]:
    return stored_tree(session.conversation_id)


def shown(window) -> list[tuple[str, str, Any]]:
    return [(m.role, m.text, m.versions) for m in window.chat_view.messages()]


def ask(qasync_loop, session, model: Model, text: str, answer: str | None) -> None:
    model.answers.append(answer)
    session.send(text)
    settle(qasync_loop, session)


def test_regenerate_by_shortcut_and_with_another_model_then_switch_versions(qtbot, qasync_loop, app, model):
    window, session = app
    ask(qasync_loop, session, model, "Name an otter", "Olive")
    assert shown(window) == [("user", "Name an otter", None), ("assistant", "Olive", None)]

    model.answers.append("Oscar")
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_R, CTRL_SHIFT)
    settle(qasync_loop, session)
    assert tree(session) == [("user", "Name an otter"), ("assistant", "Oscar")]
    assert shown(window)[-1] == ("assistant", "Oscar", (2, 2))
    assert [m["content"] for m in model.sent[-1]["messages"]] == ["Name an otter"]

    model.answers.append("Otto")
    actions = session.actions.actions
    actions.build_menu(1, menu := QMenu())
    other = next(a.menu() for a in menu.actions() if a.menu() is not None)
    next(a for a in other.actions() if a.text() == "other · big").trigger()
    settle(qasync_loop, session)
    assert model.sent[-1]["model"] == "big"
    assert shown(window)[-1] == ("assistant", "Otto", (3, 3))

    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Left, Qt.KeyboardModifier.AltModifier)
    assert tree(session)[-1] == ("assistant", "Oscar")
    assert shown(window)[-1] == ("assistant", "Oscar", (2, 3))


def test_retry_after_an_error_answers_the_same_question(qtbot, qasync_loop, app, model):
    window, session = app
    ask(qasync_loop, session, model, "Are otters fast?", None)
    assert window.chat_view.messages()[-1].role == "error", "the error stays shown after the run"
    assert session.actions.actions.available(len(window.chat_view.messages()) - 1) == ["copy", "retry"]
    model.answers.append("Yes, in water.")
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_R, CTRL_SHIFT)
    settle(qasync_loop, session)
    assert tree(session) == [("user", "Are otters fast?"), ("assistant", "Yes, in water.")]
    assert [m.role for m in window.chat_view.messages()] == ["user", "assistant"]


def test_edit_a_question_sends_it_as_a_new_version(qtbot, qasync_loop, app, model):
    window, session = app
    ask(qasync_loop, session, model, "Where do otters live?", "Rivers and coasts.")
    ask(qasync_loop, session, model, "Do they sleep?", "Yes, holding hands.")
    actions = session.actions.actions
    actions.trigger("edit", 2)
    actions.editor.editor.setPlainText("Do they swim at night?")
    model.answers.append("Often, yes.")
    qtbot.mouseClick(actions.editor.ok_button, Qt.MouseButton.LeftButton)
    settle(qasync_loop, session)
    assert tree(session) == [("user", "Where do otters live?"), ("assistant", "Rivers and coasts."),
                             ("user", "Do they swim at night?"), ("assistant", "Often, yes.")]
    assert [m["content"] for m in model.sent[-1]["messages"]] == ["Where do otters live?", "Rivers and coasts.",
                                                                  "Do they swim at night?"]
    assert shown(window)[2] == ("user", "Do they swim at night?", (2, 2))


def test_edit_an_answer_steers_what_the_model_sees_next(qtbot, qasync_loop, app, model):
    window, session = app
    ask(qasync_loop, session, model, "Pick a colour", "Blue.")
    actions = session.actions.actions
    actions.trigger("edit", 1)
    actions.editor.editor.setPlainText("Green.")
    qtbot.mouseClick(actions.editor.ok_button, Qt.MouseButton.LeftButton)
    assert tree(session) == [("user", "Pick a colour"), ("assistant", "Green.")]
    assert shown(window)[1] == ("assistant", "Green.", (2, 2))
    ask(qasync_loop, session, model, "Why?", "Because of the trees.")
    assert [m["content"] for m in model.sent[-1]["messages"]] == ["Pick a colour", "Green.", "Why?"]


def test_continue_after_stop_goes_on_in_the_same_answer(qtbot, qasync_loop, app, model):
    window, session = app
    stopped_answer(qtbot, qasync_loop, window, session, model, "Tell me about otter fur",
                   "Otters have the densest fur")
    assert window.chat_view.messages()[-1].status == "interrupted"
    model.answers.append(" of any animal.")
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Return, CTRL_SHIFT)
    settle(qasync_loop, session)
    assert tree(session) == [("user", "Tell me about otter fur"), ("assistant", "Otters have the densest fur"),
                             ("assistant", " of any animal.")]
    assert model.sent[-1]["messages"][-1] == {"role": "user", "content": CONTINUE_PROMPT}
    assert shown(window) == [("user", "Tell me about otter fur", None),
                             ("assistant", "Otters have the densest fur of any animal.", None)]
    assert window.chat_view.messages()[-1].status == "complete"


def test_delete_a_pair_keeps_the_rest(qtbot, qasync_loop, app, model):
    window, session = app
    ask(qasync_loop, session, model, "First?", "One.")
    ask(qasync_loop, session, model, "Second?", "Two.")
    actions = session.actions.actions
    actions.trigger("delete", 0)
    actions.confirmation.button(QMessageBox.StandardButton.Yes).click()
    assert tree(session) == [("user", "Second?"), ("assistant", "Two.")]
    assert shown(window) == [("user", "Second?", None), ("assistant", "Two.", None)]


def test_a_continuation_seen_again_after_switching_keeps_the_answers_start(qtbot, qasync_loop, app, model):
    window, session = app
    stopped_answer(qtbot, qasync_loop, window, session, model, "Tell me about otter fur",
                   "Otters have the densest fur")
    conversation = session.conversation_id
    model.answers.append("HANG: of any animal")
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Return, CTRL_SHIFT)
    streamed(qasync_loop, window, "any animal")
    session.new_chat()
    session.open_conversation(conversation)
    window.chat_view.flush()
    text = window.chat_view.toPlainText()
    assert "Otters have the densest fur" in text and "of any animal" in text
    qtbot.keyClick(window.composer.input_widget(), Qt.Key.Key_Escape)
    settle(qasync_loop, session)
