"""Regenerate and edit & resend refused before they start say so above the composer, like a refused send
(user pass 4).

With a conversation open, "Answer again" with a provider that has no stored key, or an edited question sent
while the composer's model had no key, put "No API key is stored…" into the chat under the last answer, as if
that answer had failed. Now the chat reads as before, "Not sent: …" shows above the composer, and the edited
question's text waits in the composer.
"""

from __future__ import annotations

from PySide6.QtCore import Qt

from app.paths import resolve_paths
from app.settings import ProviderSettings, Settings, save_settings
from tests.support.loopback import LoopbackServer
from tests.support.window_actions import Model, close_window, open_window, settle, tree

NO_KEY = "No API key is stored for oa."


def _configure(loopback: LoopbackServer) -> Model:
    providers = [ProviderSettings(id="local", base_url=loopback.url + "/v1", default_model="m"),
                 ProviderSettings(id="oa", preset="openai", base_url="https://api.openai.com/v1", default_model="g")]
    save_settings(Settings(providers=providers, default_provider="local"), resolve_paths().settings)
    return Model(loopback)


def _answered(qtbot, qasync_loop, loopback):
    model = _configure(loopback)
    window, session = open_window(qtbot, qasync_loop)
    model.answers.append("Otters sleep holding hands.")
    session.send("How do otters sleep?")
    settle(qasync_loop, session)
    window.chat_view.flush()
    return model, window, session


def test_a_refused_regenerate_is_not_shown_as_the_answers_failure(qtbot, qasync_loop, loopback: LoopbackServer,
                                                                   parley_home):
    model, window, session = _answered(qtbot, qasync_loop, loopback)
    before = window.chat_view.toPlainText()
    stored = tree(session.conversation_id)
    question_id = window.chat_view.messages()[0].ref

    session.actions.answer_again(question_id, "oa", "g")  # "Answer again with" oa · g, which has no key
    window.chat_view.flush()
    assert window.chat_view.toPlainText() == before
    assert [m.role for m in window.chat_view.messages()] == ["user", "assistant"]
    assert NO_KEY in window.send_refusal.message() and window.send_refusal.isVisible()
    assert tree(session.conversation_id) == stored

    model.answers.append("Curled up in kelp.")  # the next action that goes takes the refusal away
    session.actions.answer_again(question_id, "local", "m")
    assert not window.send_refusal.isVisible()
    settle(qasync_loop, session)
    close_window(qasync_loop, session)


def test_a_refused_edit_keeps_the_edited_text_in_the_composer(qtbot, qasync_loop, loopback: LoopbackServer,
                                                              parley_home):
    model, window, session = _answered(qtbot, qasync_loop, loopback)
    before = window.chat_view.toPlainText()
    assert window.composer.set_current_model("oa", "g")
    actions = session.actions.actions
    actions.trigger("edit", 0)
    actions.editor.editor.setPlainText("How do sea otters sleep?")
    qtbot.mouseClick(actions.editor.ok_button, Qt.MouseButton.LeftButton)
    window.chat_view.flush()
    assert window.chat_view.toPlainText() == before
    assert NO_KEY in window.send_refusal.message() and window.send_refusal.isVisible()
    assert window.composer.text() == "How do sea otters sleep?"  # nothing the user wrote is lost
    assert len(model.sent) == 1
    close_window(qasync_loop, session)
