"""An attachment's kind reads the same on the composer's chip, on the sent message and in the edit box
(user pass 2026-11-27: "TXT · 1 KB" on the chip, "PLAIN · 1 KB" after sending). The real window (pytest-qt,
qasync) against a model on loopback, over a real SQLite file and attachment store."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.window_actions import (
    close_window,
    model_fixture,  # noqa: F401 (the model fixture)
    open_window,
    settle,
)


@pytest.fixture
def app(qtbot, qasync_loop, model):
    window, session = open_window(qtbot, qasync_loop)
    yield window, session
    close_window(qasync_loop, session)


def test_a_text_files_kind_is_the_same_on_the_chip_the_message_and_the_edit_box(qasync_loop, app, model,
                                                                                  tmp_path: Path):
    window, session = app
    notes = tmp_path / "notes.txt"
    notes.write_text("Otters hold hands while they sleep.\n")
    session.draft.add_paths([str(notes)])
    assert [chip.detail for chip in window.composer.attachments.chips()] == ["TXT · 1 KB"]

    model.answers.append("Noted.")
    session.send("Read this")
    settle(qasync_loop, session)
    window.chat_view.flush()
    assert "Attached: notes.txt · TXT · 1 KB" in window.chat_view.toPlainText()

    actions = session.actions.actions
    actions.trigger("edit", 0)
    assert actions.editor is not None
    assert [chip.detail for chip in actions.editor.attachments.chips()] == ["TXT · 1 KB"]
