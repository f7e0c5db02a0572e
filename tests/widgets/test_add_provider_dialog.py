"""The Add-a-provider dialog against a real HTTP server on loopback: list models, test, validation, layout."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt

from app.runs.provider_check import TEST_PROMPT, draft_config, model_names, trial_reply
from tests.support.loopback import Chunk, Response
from tests.support.openai_wire import stream_response
from widgets.add_provider_dialog import AddProviderDialog, NewProvider

FAKE_KEY = "test-key-not-real"


async def list_for(new: NewProvider) -> list[str]:
    return await model_names(draft_config(new.kind, new.preset, new.base_url, new.api_key, new.id))


async def try_for(new: NewProvider) -> str:
    return await trial_reply(draft_config(new.kind, new.preset, new.base_url, new.api_key, new.id), new.model)


def make_dialog(qtbot, loopback) -> AddProviderDialog:
    dialog = AddProviderDialog(preset="custom", list_models=list_for, test_provider=try_for)
    qtbot.addWidget(dialog)
    dialog.base_url.setText(loopback.url + "/v1")
    dialog.name.setText("local")
    return dialog


def finish(qasync_loop, dialog: AddProviderDialog) -> None:
    assert dialog.task is not None
    qasync_loop.run_until_complete(asyncio.wait_for(dialog.task, 5))


def test_list_models_asks_the_server_in_the_background_and_fills_the_picker(qtbot, qasync_loop, loopback):
    loopback.add("GET", "/v1/models", Response.json({"data": [{"id": "tiny-1"}, {"id": "tiny-2"}]},
                                                   chunk_delay=0.2))
    dialog = make_dialog(qtbot, loopback)
    dialog.api_key.setText(FAKE_KEY)
    qtbot.mouseClick(dialog.list_button, Qt.MouseButton.LeftButton)
    # the click returned while the server has not answered yet: the window is not waiting on the network
    assert not dialog.task.done()
    assert dialog.status_text() == "Asking the server for its models…"
    assert not dialog.list_button.isEnabled()
    finish(qasync_loop, dialog)
    assert [dialog.model.itemText(i) for i in range(dialog.model.count())] == ["tiny-1", "tiny-2"]
    assert dialog.model.currentText() == "tiny-1"
    assert dialog.status_text() == "The server lists 2 models; pick one above."
    assert dialog.list_button.isEnabled()
    assert loopback.requests[0].header("Authorization") == f"Bearer {FAKE_KEY}"


def test_list_models_says_what_failed(qtbot, qasync_loop, loopback):
    loopback.add("GET", "/v1/models", Response.json({"error": {"message": "Incorrect API key provided"}},
                                                   status=401))
    dialog = make_dialog(qtbot, loopback)
    qtbot.mouseClick(dialog.list_button, Qt.MouseButton.LeftButton)
    finish(qasync_loop, dialog)
    assert dialog.status_text().startswith("Could not list models:")
    assert "Incorrect API key provided" in dialog.status_text()
    assert dialog.model.count() == 0


def test_test_sends_one_tiny_request_and_quotes_the_reply(qtbot, qasync_loop, loopback):
    loopback.add("POST", "/v1/chat/completions", stream_response("ok"))
    dialog = make_dialog(qtbot, loopback)
    dialog.model.setEditText("tiny-1")
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    assert dialog.status_text() == "Sending a test message to tiny-1…"
    finish(qasync_loop, dialog)
    assert dialog.status_text() == "OK: tiny-1 answered “ok”."
    (sent,) = loopback.requests_for("POST", "/v1/chat/completions")
    assert sent.json["model"] == "tiny-1"
    assert sent.json["messages"][-1]["content"] == TEST_PROMPT


def test_test_reports_the_providers_error(qtbot, qasync_loop, loopback):
    loopback.add("POST", "/v1/chat/completions",
                 Response.json({"error": {"message": "The model `tiny-9` does not exist"}}, status=404))
    dialog = make_dialog(qtbot, loopback)
    dialog.model.setEditText("tiny-9")
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    finish(qasync_loop, dialog)
    assert dialog.status_text().startswith("Test failed:")
    assert "does not exist" in dialog.status_text()
    assert dialog.test_button.isEnabled()


def test_test_without_a_model_says_so_without_a_request(qtbot, qasync_loop, loopback):
    dialog = make_dialog(qtbot, loopback)
    qtbot.mouseClick(dialog.test_button, Qt.MouseButton.LeftButton)
    assert dialog.status_text() == "Model: enter the model name the provider uses."
    assert dialog.task is None and loopback.requests == []


def test_closing_the_dialog_stops_a_check_in_flight(qtbot, qasync_loop, loopback):
    loopback.add("GET", "/v1/models", Response(chunks=[Chunk(b"{}", delay=5)]))
    dialog = make_dialog(qtbot, loopback)
    qtbot.mouseClick(dialog.list_button, Qt.MouseButton.LeftButton)
    dialog.reject()
    qasync_loop.run_until_complete(asyncio.wait([dialog.task], timeout=5))
    assert dialog.task.cancelled()


def test_a_shown_problem_goes_away_once_the_field_is_fixed(qtbot):
    dialog = AddProviderDialog(preset="custom")
    qtbot.addWidget(dialog)
    dialog.name.setText("bad name!")
    dialog.base_url.setText("localhost:8080")
    dialog.model.setEditText("m")
    dialog.buttons.accepted.emit()
    assert dialog.problem_text().splitlines() == [
        "Name: use letters, digits, '.', '_' or '-' (up to 64), starting with a letter or digit.",
        "Base URL: must start with http:// or https://."]
    dialog.name.setText("good-name")
    assert dialog.problem_text() == "Base URL: must start with http:// or https://."
    dialog.base_url.setText("http://localhost:8080/v1")
    assert dialog.problem_text() == ""
    dialog.buttons.accepted.emit()
    assert dialog.result() == AddProviderDialog.DialogCode.Accepted


def test_the_key_fields_placeholder_is_not_cut(qtbot):
    dialog = AddProviderDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    field = dialog.api_key
    text_room = field.width() - 2 * field.style().pixelMetric(field.style().PixelMetric.PM_DefaultFrameWidth) - 8
    assert field.fontMetrics().horizontalAdvance(field.placeholderText()) <= text_room


def test_a_servers_message_is_shown_literally(qtbot, qasync_loop, loopback):
    loopback.add("GET", "/v1/models", Response.json({"error": {"message": "<b>no</b> <img src='/dev/zero'>"}},
                                                   status=400))
    dialog = make_dialog(qtbot, loopback)
    qtbot.mouseClick(dialog.list_button, Qt.MouseButton.LeftButton)
    finish(qasync_loop, dialog)
    assert "<b>no</b> <img src='/dev/zero'>" in dialog.status_text()
    assert dialog.status.textFormat() == Qt.TextFormat.PlainText
