"""Preferences > Local models as a widget on plain values: rows with their metadata and the default, the
buttons' requests, the download choice (curated or typed), progress and Cancel, and the engine's state and log."""

from __future__ import annotations

from PySide6.QtCore import Qt

from widgets.preferences_local_models import DownloadChoice, LocalModelsTab, ModelRow

ROWS = [ModelRow("smollm2-135m-instruct", "/m/smollm2.gguf", 98_362_432, "Q4_1", 8192, "apache-2.0", default=True,
                 demo=True),
        ModelRow("qwen", "/m/qwen.gguf", 491_000_000, "Q4_K_M", 32768, "apache-2.0", note="reading its metadata…"),
        ModelRow("gone", "/m/gone.gguf", None, note="the file is missing")]
CHOICES = [DownloadChoice("qwen2.5-0.5b-instruct", "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
                          "qwen2.5-0.5b-instruct-q4_k_m.gguf", 491_000_000, "apache-2.0", "small")]


def make_tab(qtbot, chosen: list[str] | None = None, confirmed: bool = True) -> LocalModelsTab:
    tab = LocalModelsTab(ROWS, CHOICES, choose_file=lambda _p: (chosen or [None]).pop(0),
                         confirm=lambda _p, _q: confirmed)
    qtbot.addWidget(tab)
    return tab


def cells(tab: LocalModelsTab, row: int) -> list[str]:
    return [tab.table.item(row, c).text() for c in range(tab.table.columnCount())]


def test_rows_show_size_quantization_context_license_and_the_default(qtbot) -> None:
    tab = make_tab(qtbot)
    assert cells(tab, 0) == ["smollm2-135m-instruct  ★ default  (tiny demo)", "98 MB", "Q4_1", "8,192",
                             "apache-2.0"]
    assert cells(tab, 1)[:2] == ["qwen", "491 MB"] and cells(tab, 2)[1] == "missing"
    tab.select("smollm2-135m-instruct")
    assert not tab.delete_button.isEnabled() and not tab.default_button.isEnabled()  # the demo stays
    tab.select("qwen")
    assert tab.delete_button.isEnabled() and tab.default_button.isEnabled()
    assert "reading its metadata" in tab.row_note.text()
    tab.select("gone")
    assert not tab.default_button.isEnabled() and not tab.preload_button.isEnabled()


def test_the_buttons_ask_for_what_the_user_picked(qtbot) -> None:
    tab = make_tab(qtbot, chosen=["/home/me/new.gguf"])
    asked: list[tuple[str, object]] = []
    for name in ("default_chosen", "add_requested", "delete_requested", "preload_requested"):
        getattr(tab, name).connect(lambda value, name=name: asked.append((name, value)))
    tab.restart_requested.connect(lambda: asked.append(("restart", None)))
    tab.select("qwen")
    for button in (tab.default_button, tab.add_button, tab.delete_button, tab.preload_button, tab.restart_button):
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    assert asked == [("default_chosen", "qwen"), ("add_requested", "/home/me/new.gguf"),
                     ("delete_requested", "qwen"), ("preload_requested", "qwen"), ("restart", None)]


def test_delete_asks_first_and_a_no_keeps_the_model(qtbot) -> None:
    tab = make_tab(qtbot, confirmed=False)
    deleted: list[str] = []
    tab.delete_requested.connect(deleted.append)
    tab.select("qwen")
    qtbot.mouseClick(tab.delete_button, Qt.MouseButton.LeftButton)
    assert deleted == []


def test_download_a_curated_or_a_typed_file_with_progress_and_cancel(qtbot) -> None:
    tab = make_tab(qtbot)
    asked: list[tuple[str, str]] = []
    tab.download_requested.connect(lambda repo, file: asked.append((repo, file)))
    assert "491 MB" in tab.choice.itemText(0) and tab.repo_field.isHidden()
    qtbot.mouseClick(tab.download_button, Qt.MouseButton.LeftButton)
    tab.choice.setCurrentIndex(1)
    assert not tab.repo_field.isHidden()
    qtbot.mouseClick(tab.download_button, Qt.MouseButton.LeftButton)
    assert "Type the repository" in tab.download_status.text()
    tab.repo_field.setText("me/models")
    tab.file_field.setText("mine.gguf")
    qtbot.mouseClick(tab.download_button, Qt.MouseButton.LeftButton)
    assert asked == [(CHOICES[0].repo, CHOICES[0].file), ("me/models", "mine.gguf")]

    tab.set_downloading("mine.gguf from me/models")
    assert not tab.download_button.isEnabled() and tab.cancel_button.isEnabled()
    tab.set_download_progress("download", 250_000_000, 1_000_000_000)
    assert tab.progress.value() == 250 and "250 MB of 1.00 GB" in tab.progress.text()
    with qtbot.waitSignal(tab.cancel_requested):
        qtbot.mouseClick(tab.cancel_button, Qt.MouseButton.LeftButton)
    tab.download_finished("Download stopped.", ok=False)
    assert tab.download_button.isEnabled() and not tab.cancel_button.isEnabled()
    assert tab.download_status.text() == "Download stopped."


def test_the_engine_state_and_log_are_shown_as_plain_text(qtbot) -> None:
    tab = make_tab(qtbot)
    tab.set_engine("Failed: <b>exit 1</b>", "llama_load_model: <error> bad magic\nline 2")
    assert tab.engine_state.text() == "Failed: <b>exit 1</b>"
    assert tab.engine_state.textFormat() == Qt.TextFormat.PlainText
    assert tab.log_view.toPlainText().endswith("line 2")
