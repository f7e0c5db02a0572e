"""Editing a question (message actions) sends the new version with the original question's attachments, not
the composer's draft, and lets the user remove some in the editor. The real window (pytest-qt, qasync) against
a model on loopback, over a real SQLite file and attachment store."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton

from app.paths import resolve_paths
from app.storage import History
from tests.support.window_actions import (
    app_fixture,  # noqa: F401 (the app fixture)
    model_fixture,  # noqa: F401 (the model fixture)
    settle,
)


def files(tmp_path: Path, **contents: str) -> list[str]:
    paths = []
    for name, text in contents.items():
        path = tmp_path / f"{name}.txt"
        path.write_text(text)
        paths.append(str(path))
    return paths


def sent_files(request: dict) -> list[str]:
    """The attached files' first lines in the last user message of a request."""
    content = request["messages"][-1]["content"]
    parts = content if isinstance(content, list) else [{"type": "text", "text": content}]
    return [p["text"].splitlines()[0] for p in parts if p["type"] == "text" and p["text"].startswith("[Attached")]


def stored_attachments(conversation_id: int) -> list[tuple[str, list[str]]]:
    with History.open(resolve_paths().database) as history:
        return [(m.content, [a.name for a in m.attachments])
                for m in history.all_messages(conversation_id) if m.role == "user"]


def ask_with(qasync_loop, session, model, text: str, paths: list[str]) -> None:
    session.draft.add_paths(paths)
    model.answers.append("Read them.")
    session.send(text)
    settle(qasync_loop, session)


def test_edit_and_resend_keeps_the_originals_attachments_not_the_drafts(qtbot, qasync_loop, app, model,
                                                                         tmp_path):
    window, session = app
    ask_with(qasync_loop, session, model, "Summarise these", files(tmp_path, otters="Otters hold hands",
                                                                  rivers="Rivers run"))
    assert sent_files(model.sent[-1]) == ["[Attached file: otters.txt]", "[Attached file: rivers.txt]"]
    session.draft.add_paths(files(tmp_path, draft="A draft for later"))  # the next message's, not the edit's

    actions = session.actions.actions
    actions.trigger("edit", 0)
    editor = actions.editor
    assert editor is not None and editor.kept_attachments() != []
    assert [chip.name for chip in editor.attachments.chips()] == ["otters.txt", "rivers.txt"]
    editor.editor.setPlainText("Summarise these in one line")
    model.answers.append("Otters and rivers.")
    qtbot.mouseClick(editor.ok_button, Qt.MouseButton.LeftButton)
    settle(qasync_loop, session)

    assert sent_files(model.sent[-1]) == ["[Attached file: otters.txt]", "[Attached file: rivers.txt]"]
    assert stored_attachments(session.conversation_id) == [
        ("Summarise these", ["otters.txt", "rivers.txt"]),
        ("Summarise these in one line", ["otters.txt", "rivers.txt"])]
    assert [item.name for item in session.draft.items()] == ["draft.txt"]  # the draft is left for its message
    shown_question = window.chat_view.messages()[0]
    assert [a.name for a in shown_question.attachments] == ["otters.txt", "rivers.txt"]


def test_an_attachment_removed_in_the_editor_is_not_sent_again(qtbot, qasync_loop, app, model, tmp_path):
    _window, session = app
    ask_with(qasync_loop, session, model, "Compare these", files(tmp_path, otters="Otters", rivers="Rivers"))
    actions = session.actions.actions
    actions.trigger("edit", 0)
    editor = actions.editor
    remove_rivers = next(b for b in editor.attachments.findChildren(QToolButton, "removeAttachment")
                         if b.accessibleName() == "Remove rivers.txt")
    qtbot.mouseClick(remove_rivers, Qt.MouseButton.LeftButton)
    assert [chip.name for chip in editor.attachments.chips()] == ["otters.txt"]
    model.answers.append("Only otters.")
    qtbot.mouseClick(editor.ok_button, Qt.MouseButton.LeftButton)
    settle(qasync_loop, session)
    assert sent_files(model.sent[-1]) == ["[Attached file: otters.txt]"]
    assert stored_attachments(session.conversation_id)[-1] == ("Compare these", ["otters.txt"])


def test_an_attachment_whose_file_is_gone_is_named_and_the_edit_kept(qtbot, qasync_loop, app, model, tmp_path):
    window, session = app
    ask_with(qasync_loop, session, model, "Read this", files(tmp_path, otters="Otters"))
    with History.open(resolve_paths().database) as history:
        (record,) = history.message(history.branch(session.conversation_id)[0].id).attachments
        history.attachments.path(record.sha256).unlink()
    sent = len(model.sent)
    actions = session.actions.actions
    actions.trigger("edit", 0)
    actions.editor.editor.setPlainText("Read this again")
    qtbot.mouseClick(actions.editor.ok_button, Qt.MouseButton.LeftButton)
    settle(qasync_loop, session)
    window.chat_view.flush()
    assert len(model.sent) == sent  # nothing was sent
    assert "otters.txt is no longer in Parley's data folder" in window.send_refusal.message()  # above the composer
    assert window.composer.input_widget().toPlainText() == "Read this again"
